import type { Event } from '../../../shared/src/index.js';
import type { AuditService } from '../audit/index.js';
import type { Clock } from '../clock.js';
import type { ApiKeyRecord, HostsRepo } from '../store/index.js';

/** Which bound identity an event contradicts, or null when the key may send it. */
export function bindingMismatch(key: ApiKeyRecord, event: Pick<Event, 'host' | 'source'>): 'hostname' | 'agent_instance_id' | null {
  if (key.bound_hostname !== null && event.host.hostname.trim().toLowerCase() !== key.bound_hostname) return 'hostname';
  if (key.bound_instance_id !== null && event.source.agent_instance_id?.trim() !== key.bound_instance_id) return 'agent_instance_id';
  return null;
}

/** One audit row per key, claimed host and outcome in this period: a looping agent must not flood the log. */
const AUDIT_REPEAT_MS = 10 * 60_000;
const AUDIT_MEMORY = 1000;

/**
 * Enforces per-key host binding at ingest: an event naming another host (or agent installation)
 * than its key is bound to is refused or accepted-and-flagged, as the admin chose for the key.
 * Either way it is audited, so one compromised host cannot quietly heartbeat for another.
 */
export class KeyBindingGuard {
  private readonly audited = new Map<string, number>();
  /** `key id \n hostname|os`: whether that host runs another installation than the key's (one host list per pair and daemon). */
  private readonly otherInstallation = new Map<string, boolean>();

  constructor(
    private readonly audit: AuditService,
    private readonly clock: Clock,
    private readonly hosts: Pick<HostsRepo, 'list'>,
  ) {}

  /**
   * `accept` for an unbound key or a matching event; `flag` for a mismatch stored flagged; `refuse` otherwise. A key
   * bound to an installation alone does not name a host that SAC knows runs another installation:
   * that host's commands would then go to the key's installation.
   */
  async check(key: ApiKeyRecord, event: Pick<Event, 'host' | 'source'>, ip: string | undefined): Promise<'accept' | 'flag' | 'refuse'> {
    const field = bindingMismatch(key, event) ?? ((await this.namesAnotherInstallation(key, event)) ? 'hostname' : null);
    if (field === null) return 'accept';
    const outcome = key.on_mismatch === 'flag' ? 'flag' : 'refuse';
    const claimed = field === 'hostname' ? event.host.hostname : (event.source.agent_instance_id ?? '');
    const memo = `${key.id}|${field}|${claimed.toLowerCase()}|${outcome}`;
    const now = this.clock.now();
    const last = this.audited.get(memo);
    if (last === undefined || now - last >= AUDIT_REPEAT_MS) {
      if (this.audited.size >= AUDIT_MEMORY) this.audited.clear();
      this.audited.set(memo, now);
      await this.audit.record({
        action: 'apikey.host_mismatch',
        actor: { user: null, ip },
        target: `apikey:${key.id}`,
        outcome: outcome === 'refuse' ? 'denied' : 'ok',
        details: { prefix: key.prefix, field, claimed: claimed.slice(0, 255), action: key.on_mismatch },
      });
    }
    return outcome;
  }

  private async namesAnotherInstallation(key: ApiKeyRecord, event: Pick<Event, 'host' | 'source'>): Promise<boolean> {
    if (key.bound_hostname !== null || key.bound_instance_id === null) return false;
    const hostname = event.host.hostname.trim().toLowerCase();
    const memo = `${key.id}\n${hostname}|${event.host.os_family}`;
    const known = this.otherInstallation.get(memo);
    if (known !== undefined) return known;
    const other = (await this.hosts.list()).some(
      (h) => h.hostname.trim().toLowerCase() === hostname && h.os_family === event.host.os_family && h.agent_instance_id != null && h.agent_instance_id !== key.bound_instance_id,
    );
    if (this.otherInstallation.size >= AUDIT_MEMORY) this.otherInstallation.clear();
    this.otherInstallation.set(memo, other);
    return other;
  }
}
