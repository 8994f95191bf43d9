import { approvalAudit, type ApprovalPolicy, type Approved } from '../approvals/index.js';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { eventIp, type BanCreateInputSchema, type BanListQuerySchema, type BanTarget, type BanView, type SettingsValue } from '../../../shared/src/index.js';
import type { Actor, AuditService } from '../audit/index.js';
import type { VerifiedTarget } from '../action-target.js';
import type { Clock } from '../clock.js';
import { AppError, errorSummary } from '../errors.js';
import type { DomainFact, Facts } from '../facts.js';
import type { Fence } from '../jobs/index.js';
import { ShellFailure, type LinuxShell } from '../remote-shell/index.js';
import type { BanHostRecord, BanRecord, CommittedEvent, Host, Store } from '../store/index.js';
import { banAddress, banDuration, ipsetAddScript, ipsetDelScript, neverBanMatch, parseCidr, unbannableScope, type BanAddress, type NeverBanEntry } from './bans.rules.js';

export type BansSettings = SettingsValue<'ssh_bans'>;

/** Event types whose reporting host banned an address itself (ssh-monitor): what the propagation policy reacts to. */
export const PROPAGATED_TYPES: ReadonlySet<string> = new Set(['ssh.ip.banned', 'ssh.bruteforce.mass']);

const DAY_MS = 86_400_000;
/** Output kept from a host command; its stderr is what a failure shows. */
const MAX_OUTPUT = 2000;
const MAX_DETAIL = 500;
const SIGNIN_SCAN_LIMIT = 1000;

export interface BansDeps {
  store: Pick<Store, 'bans' | 'hosts' | 'events' | 'problems' | 'audit'>;
  settings: () => Promise<BansSettings>;
  linux: LinuxShell;
  /** Where SSH may connect for a host: its verified action target (`verifiedTarget`); throws `action/target_unverified`. */
  target: (host: Host) => Promise<VerifiedTarget>;
  /** The addresses of the machine SAC runs on. */
  ownAddresses: () => readonly string[];
  audit: AuditService;
  clock: Clock;
  logger: Logger;
  /** Budget of one host (connect, then the command). */
  timeoutMs: number;
  /** Fleet bans may need a second person's approval. */
  approvals: Pick<ApprovalPolicy, 'assert' | 'requires'>;
}

type CreateInput = z.output<typeof BanCreateInputSchema>;
type Source = Pick<BanRecord, 'source' | 'event_id' | 'problem_id'>;
const SYSTEM: Actor = { user: null, ip: undefined };

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** A stored ban as clients see it. */
function view(r: BanRecord): BanView {
  return {
    id: r.id,
    address: r.address,
    family: r.family,
    set_name: r.family === 4 ? 'ssh_monitor_ban' : 'ssh_monitor_ban_v6',
    status: r.status,
    reason: r.reason,
    source: r.source,
    event_id: r.event_id,
    problem_id: r.problem_id,
    target: r.target,
    duration_s: r.duration_s,
    previous_bans: r.previous_bans,
    created_by: r.created_by,
    created_at: iso(r.created_ms)!,
    applied_by: r.applied_by,
    applied_at: iso(r.applied_ms),
    expires_at: iso(r.expires_ms),
    ended_by: r.ended_by,
    ended_at: iso(r.ended_ms),
    hosts: r.hosts.map((h) => ({ host_id: h.host_id, hostname: h.hostname, outcome: h.outcome, detail: h.detail, address: h.address, at: iso(h.at_ms) })),
  };
}

const banNotFound = (id: string) => new AppError('ssh_ban/not_found', `No ban ${id}`);

/**
 * A ban as a caller limited to host groups sees it, or null when it reached none of their hosts:
 * their hosts' results and targets only, and not the event or problem it came from (of any host).
 */
function scopedView(r: BanRecord, within: ReadonlySet<string>): BanView | null {
  const hosts = r.hosts.filter((h) => within.has(h.host_id));
  if (hosts.length === 0) return null;
  const target = r.target.kind === 'hosts' ? { kind: 'hosts' as const, host_ids: r.target.host_ids.filter((id) => within.has(id)) } : r.target;
  return view({ ...r, hosts, target, event_id: null, problem_id: null });
}

/** Runs `fn` over `items`, at most `limit` at once; results in the items' order. */
async function eachLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

const outcomeCounts = (hosts: readonly BanHostRecord[]) =>
  hosts.reduce<Record<string, number>>((acc, h) => ({ ...acc, [h.outcome]: (acc[h.outcome] ?? 0) + 1 }), {});

/**
 * Fleet SSH bans: an attacking address added to ssh-monitor's ipset set on every Linux host (or
 * a list of hosts) over the `ssh_admin` account, with a timeout; proposed by hand, from an event
 * or a problem, or by the propagation policy when a host reports that it banned one itself.
 * An address has at most one open ban (the store's slot), so a proposal is made, applied and
 * ended once however many daemons and reports race.
 */
export class BansService {
  constructor(private readonly deps: BansDeps) {}

  /** `within`: the host ids a caller limited to host groups may see (null: every host); such a caller gets the bans applied on them (`scopedView`). */
  async list(query: z.output<typeof BanListQuerySchema>, within: ReadonlySet<string> | null = null): Promise<BanView[]> {
    const records = await this.deps.store.bans.list(query);
    return within ? records.flatMap((r) => scopedView(r, within) ?? []) : records.map(view);
  }

  async byId(id: string, within: ReadonlySet<string> | null = null): Promise<BanView> {
    const record = await this.record(id);
    if (!within) return view(record);
    const seen = scopedView(record, within);
    if (!seen) throw banNotFound(id);
    return seen;
  }

  /** The address a ban would name and the hosts it would reach, checked as a ban checks them (for an approval request). */
  async plan(request: { create: CreateInput } | { apply: string }): Promise<{ address: string; hosts: Host[] }> {
    const settings = await this.deps.settings();
    if ('apply' in request) {
      const current = await this.record(request.apply);
      if (current.status !== 'proposed') throw new AppError('ssh_ban/not_proposed', `Ban ${current.id} is ${current.status}, not proposed`);
      return { address: (await this.checked(current.address, settings)).address, hosts: await this.targetHosts(current.target) };
    }
    const { raw } = await this.sourceOf(request.create);
    return { address: (await this.checked(raw, settings)).address, hosts: await this.targetHosts(request.create.target) };
  }

  /** Bans an address now (or applies the open proposal for it); under the approval policy only with `approved`. */
  async create(input: CreateInput, caller: Actor, approved?: Approved): Promise<BanView> {
    const settings = await this.deps.settings();
    const { raw, source } = await this.sourceOf(input);
    const address = await this.checked(raw, settings);
    await this.targetHosts(input.target);
    await this.deps.approvals.assert({ kind: 'ban_create', ...input }, approved);
    const record = this.newRecord(address, source, input.reason ?? 'banned from the console', settings.default_duration_s, input.target, caller.user?.username ?? null);
    const put = await this.deps.store.bans.insertOpen(record);
    if (!put.inserted && put.existing.status !== 'proposed') {
      throw new AppError('ssh_ban/already_banned', `${address.address} is already banned (ban ${put.existing.id})`, { details: { ban_id: put.existing.id } });
    }
    const id = put.inserted ? record.id : put.existing.id;
    return this.applyNow(id, caller, { target: input.target, duration_s: input.duration_s, reason: input.reason }, approved);
  }

  /** Applies a proposed ban; under the approval policy only with `approved`. */
  async apply(id: string, caller: Actor, approved?: Approved): Promise<BanView> {
    const current = await this.record(id);
    if (current.status !== 'proposed') throw new AppError('ssh_ban/not_proposed', `Ban ${id} is ${current.status}, not proposed`);
    await this.deps.approvals.assert({ kind: 'ban_apply', id }, approved);
    return this.applyNow(id, caller, {}, approved);
  }

  /** Applies a proposed ban on its hosts: each host's outcome is recorded, whatever it is. */
  private async applyNow(id: string, caller: Actor, overrides: { target?: BanTarget; duration_s?: number; reason?: string }, approved: Approved | undefined): Promise<BanView> {
    const current = await this.record(id);
    if (current.status !== 'proposed') throw new AppError('ssh_ban/not_proposed', `Ban ${id} is ${current.status}, not proposed`);
    const settings = await this.deps.settings();
    const address = await this.checked(current.address, settings);
    const target = overrides.target ?? current.target;
    const hosts = await this.targetHosts(target);
    const now = this.deps.clock.now();
    const previous = await this.deps.store.bans.appliedSince(address.address, now - settings.repeat_window_days * DAY_MS);
    const duration = banDuration(overrides.duration_s ?? current.duration_s, previous, settings.max_duration_s);
    const active = await this.deps.store.bans.transition(id, 'proposed', {
      status: 'active',
      target,
      reason: overrides.reason ?? current.reason,
      duration_s: duration,
      previous_bans: previous,
      applied_by: caller.user?.username ?? null,
      applied_ms: now,
      expires_ms: now + duration * 1000,
      hosts: hosts.map((h) => ({ host_id: h.id, hostname: h.hostname, outcome: 'pending', detail: null, address: null, at_ms: null })),
    });
    if (!active) throw new AppError('ssh_ban/not_proposed', `Ban ${id} was applied or dismissed meanwhile`);
    const results = await eachLimited(hosts, settings.concurrency, async (host) => {
      // The set's own timeout ends the entry on the host at the ban's expiry, however late this host is reached.
      const left = Math.max(1, Math.ceil((active.expires_ms! - this.deps.clock.now()) / 1000));
      return this.onHost(host, ipsetAddScript(address, left), 'applied');
    });
    const done = (await this.deps.store.bans.transition(id, 'active', { hosts: results })) ?? { ...active, hosts: results };
    await this.deps.audit.record({
      action: 'ssh_ban.applied',
      actor: caller,
      target: `ssh_ban:${id}`,
      details: { address: address.address, duration_s: duration, previous_bans: previous, hosts: outcomeCounts(results), ...approvalAudit(approved) },
    });
    return view(done);
  }

  /** Drops a proposal without banning. */
  async dismiss(id: string, caller: Actor): Promise<BanView> {
    const now = this.deps.clock.now();
    const closed = await this.deps.store.bans.transition(id, 'proposed', { status: 'dismissed', slot: `closed:${id}`, ended_by: caller.user?.username ?? null, ended_ms: now });
    if (!closed) throw this.notIn(await this.record(id), 'proposed');
    await this.deps.audit.record({ action: 'ssh_ban.dismissed', actor: caller, target: `ssh_ban:${id}`, details: { address: closed.address } });
    return view(closed);
  }

  /** Ends an active ban now: the address is removed from the set on every host it was applied to. */
  async unban(id: string, caller: Actor): Promise<BanView> {
    const settings = await this.deps.settings();
    const now = this.deps.clock.now();
    const ended = await this.deps.store.bans.transition(id, 'active', { status: 'unbanned', slot: `closed:${id}`, ended_by: caller.user?.username ?? null, ended_ms: now });
    if (!ended) throw this.notIn(await this.record(id), 'active');
    const address: BanAddress = { address: ended.address, family: ended.family };
    const hosts = await this.deps.store.hosts.list();
    const byId = new Map(hosts.map((h) => [h.id, h]));
    const results = await eachLimited(ended.hosts, settings.concurrency, async (h) => {
      const host = byId.get(h.host_id);
      if ((h.outcome !== 'applied' && h.outcome !== 'pending') || !host) return h;
      return this.onHost(host, ipsetDelScript(address), 'removed');
    });
    const done = (await this.deps.store.bans.transition(id, 'unbanned', { hosts: results })) ?? { ...ended, hosts: results };
    await this.deps.audit.record({ action: 'ssh_ban.unbanned', actor: caller, target: `ssh_ban:${id}`, details: { address: ended.address, hosts: outcomeCounts(results) } });
    return view(done);
  }

  /** Marks bans whose time is up as expired (ipset's timeout has already removed them on the hosts). A leader job. */
  async expireDue(fence: Fence): Promise<number> {
    let expired = 0;
    for (const ban of await this.deps.store.bans.expiredBy(this.deps.clock.now())) {
      await fence.check();
      const closed = await this.deps.store.bans.transition(ban.id, 'active', { status: 'expired', slot: `closed:${ban.id}`, ended_ms: ban.expires_ms });
      if (!closed) continue;
      expired++;
      await this.deps.audit.record({ action: 'ssh_ban.expired', actor: SYSTEM, target: `ssh_ban:${ban.id}`, details: { address: ban.address } });
    }
    return expired;
  }

  /**
   * The propagation policy for events a host banned an address for: a proposal (`suggest`) or a
   * ban applied at once (`automatic`). Only the event's first report opens one: the address's
   * open ban (the store's slot) makes every later or concurrent report, on any daemon, a no-op.
   */
  async propagate(events: readonly CommittedEvent[]): Promise<void> {
    const reports = events.filter((e) => PROPAGATED_TYPES.has(e.event.type));
    if (reports.length === 0) return;
    const settings = await this.deps.settings();
    if (settings.propagation === 'off') return;
    for (const e of reports) {
      const raw = eventIp(e.event.details);
      if (raw === null) continue;
      let address: BanAddress;
      try {
        address = await this.checked(raw, settings);
      } catch (err) {
        this.deps.logger.info({ event_id: e.event.event_id, reason: err instanceof AppError ? err.code : errorSummary(err) }, 'reported ban not propagated');
        continue;
      }
      const record = this.newRecord(
        address,
        { source: 'propagation', event_id: e.event.event_id, problem_id: null },
        `${e.host.hostname} reported ${e.event.type}`,
        settings.default_duration_s,
        { kind: 'linux' },
        null,
      );
      if (!(await this.deps.store.bans.insertOpen(record)).inserted) continue;
      await this.deps.audit.record({ action: 'ssh_ban.proposed', actor: SYSTEM, target: `ssh_ban:${record.id}`, details: { address: address.address, event_id: e.event.event_id } });
      // Under a two-person approval policy for fleet bans, an automatic ban stays a proposal.
      if (settings.propagation === 'automatic' && !(await this.deps.approvals.requires('fleet_ban', (await this.targetHosts(record.target)).map((h) => h.id)))) {
        await this.applyNow(record.id, SYSTEM, {}, undefined);
      }
    }
  }

  /** The never-ban list in force: the settings' ranges, SAC's own addresses, recent console sign-in addresses. */
  private async neverBan(settings: BansSettings): Promise<NeverBanEntry[]> {
    const entries: NeverBanEntry[] = [];
    const add = (text: string, why: string) => {
      const range = parseCidr(text);
      if (range) entries.push({ range, why });
    };
    for (const text of settings.never_ban) add(text, `the never-ban list (${text})`);
    for (const own of this.deps.ownAddresses()) add(own, 'an address of the SAC server');
    if (settings.signin_days > 0) {
      const signins = await this.deps.store.audit.list({
        action: 'auth.login_succeeded',
        from_ms: this.deps.clock.now() - settings.signin_days * DAY_MS,
        limit: SIGNIN_SCAN_LIMIT,
      });
      for (const ip of new Set(signins.map((s) => s.ip).filter((ip): ip is string => ip !== null))) add(ip, `an address a console user signed in from within ${settings.signin_days} days`);
    }
    return entries;
  }

  /** `raw` as a bannable address: valid (400 `ssh_ban/invalid_address`) and on no never-ban list (400 `ssh_ban/never_ban`). */
  private async checked(raw: string, settings: BansSettings): Promise<BanAddress> {
    const address = banAddress(raw);
    if ('refused' in address) throw new AppError('ssh_ban/invalid_address', `Cannot ban "${raw.slice(0, 64)}": ${address.refused}`);
    const match = neverBanMatch(address, await this.neverBan(settings));
    if (match) throw new AppError('ssh_ban/never_ban', `${address.address} is never banned: it is ${match.why}`, { details: { address: address.address } });
    const unbannable = unbannableScope(address);
    if (unbannable) throw new AppError('ssh_ban/invalid_address', `Cannot ban ${unbannable}`);
    return address;
  }

  /** The address a request names, directly or as the source address of an event or a problem's events. */
  private async sourceOf(input: CreateInput): Promise<{ raw: string; source: Source }> {
    if (input.address !== undefined) return { raw: input.address, source: { source: 'manual', event_id: null, problem_id: null } };
    if (input.event_id !== undefined) {
      const stored = await this.deps.store.events.byId(input.event_id);
      if (!stored) throw new AppError('event/not_found', `No event ${input.event_id}`);
      const raw = eventIp(stored.event.details);
      if (raw === null) throw new AppError('ssh_ban/no_address', 'The event names no source address');
      return { raw, source: { source: 'event', event_id: stored.event_id, problem_id: null } };
    }
    const problemId = input.problem_id!;
    if (!(await this.deps.store.problems.byId(problemId))) throw new AppError('problem/not_found', `No problem ${problemId}`);
    for (const link of await this.deps.store.problems.timeline(problemId, 50)) {
      const raw = eventIp((await this.deps.store.events.byId(link.event_id))?.event.details);
      if (raw !== null) return { raw, source: { source: 'problem', event_id: link.event_id, problem_id: problemId } };
    }
    throw new AppError('ssh_ban/no_address', 'No event of the problem names a source address');
  }

  /** The hosts a target names: every Linux host, or the listed ones (each must be a known Linux host). */
  private async targetHosts(target: BanTarget): Promise<Host[]> {
    const hosts = await this.deps.store.hosts.list();
    if (target.kind === 'linux') return hosts.filter((h) => h.os_family === 'linux');
    const byId = new Map(hosts.map((h) => [h.id, h]));
    const ids = [...new Set(target.host_ids)];
    const bad = ids.filter((id) => byId.get(id)?.os_family !== 'linux');
    if (bad.length > 0) throw new AppError('ssh_ban/bad_target', `Not a known Linux host: ${bad.slice(0, 5).join(', ')}`, { details: { host_ids: bad.slice(0, 50) } });
    return ids.map((id) => byId.get(id)!);
  }

  /** Runs one host's ipset command and says how it went. */
  private async onHost(host: Host, script: string, success: 'applied' | 'removed'): Promise<BanHostRecord> {
    const result = (outcome: BanHostRecord['outcome'], detail: string | null, address: string | null): BanHostRecord => ({
      host_id: host.id,
      hostname: host.hostname,
      outcome,
      detail: detail?.slice(0, MAX_DETAIL) ?? null,
      address,
      at_ms: this.deps.clock.now(),
    });
    let target: VerifiedTarget;
    try {
      target = await this.deps.target(host);
    } catch (err) {
      if (err instanceof AppError) return result('unverified', err.message, null);
      throw err;
    }
    const address = target.address;
    let session;
    try {
      session = await this.deps.linux.open(target, this.deps.timeoutMs);
    } catch (err) {
      if (err instanceof ShellFailure) return result('unreachable', err.message, address);
      if (err instanceof AppError) return result('failed', err.message, address);
      this.deps.logger.error({ err: errorSummary(err), host_id: host.id }, 'ban host connection failed');
      return result('failed', 'unexpected error (see the SAC log)', address);
    }
    try {
      const r = await session.run(script, { timeoutMs: this.deps.timeoutMs, maxOutput: MAX_OUTPUT });
      if (r.exitCode === 0) return result(success, null, session.host);
      return result('failed', r.stderr.trim() || r.stdout.trim() || `exit code ${r.exitCode ?? 'none'}`, session.host);
    } catch (err) {
      if (err instanceof ShellFailure) return result('unreachable', err.message, session.host);
      throw err;
    } finally {
      session.end();
    }
  }

  private newRecord(address: BanAddress, source: Source, reason: string, durationS: number, target: BanTarget, createdBy: string | null): BanRecord {
    return {
      id: randomUUID(),
      address: address.address,
      family: address.family,
      status: 'proposed',
      slot: address.address,
      reason,
      ...source,
      target,
      duration_s: durationS,
      previous_bans: 0,
      created_by: createdBy,
      created_ms: this.deps.clock.now(),
      applied_by: null,
      applied_ms: null,
      expires_ms: null,
      ended_by: null,
      ended_ms: null,
      hosts: [],
    };
  }

  private async record(id: string): Promise<BanRecord> {
    const r = await this.deps.store.bans.byId(id);
    if (!r) throw banNotFound(id);
    return r;
  }

  private notIn(r: BanRecord, wanted: 'proposed' | 'active'): AppError {
    return new AppError(wanted === 'proposed' ? 'ssh_ban/not_proposed' : 'ssh_ban/not_active', `Ban ${r.id} is ${r.status}, not ${wanted}`);
  }
}

/** The propagation policy follows committed events (on the daemon that committed them). */
export function subscribeBans(facts: Facts, bans: BansService, logger: Logger): () => void {
  return facts.subscribe((batch: readonly DomainFact[]) => {
    for (const fact of batch) {
      if (fact.type !== 'events.committed') continue;
      void bans.propagate(fact.events).catch((err: unknown) => logger.error({ err: errorSummary(err) }, 'ban propagation failed'));
    }
  });
}
