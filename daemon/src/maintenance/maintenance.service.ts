import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { MaintenanceWindowInputSchema, MaintenanceWindowView, SessionUser } from '../../../shared/src/index.js';
import type { Actor, AuditService } from '../audit/index.js';
import type { Clock } from '../clock.js';
import { AppError, invalidParameter } from '../errors.js';
import type { SettingsService } from '../settings/index.js';
import type { GroupDefinition, GroupHost } from '../groups/index.js';
import type { Host, HostsRepo, MaintenanceRepo, MaintenanceWindowRecord } from '../store/index.js';
import { activeForHost, isActive, namesGroups, silencesHost, type InForceWindow } from './maintenance.rules.js';

/** The definitions of these host groups (those that exist). */
export type GroupDefinitions = (ids: readonly string[]) => Promise<(GroupDefinition & { id: string })[]>;

type WindowInput = z.output<typeof MaintenanceWindowInputSchema>;

function view(w: MaintenanceWindowRecord, nowMs: number): MaintenanceWindowView {
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    id: w.id,
    hosts: w.hosts,
    group_ids: w.group_ids,
    type_prefixes: w.type_prefixes,
    rules: w.rules,
    starts_at: iso(w.starts_ms),
    ends_at: w.ends_ms === null ? null : iso(w.ends_ms),
    recurrence: w.recurrence,
    reason: w.reason,
    created_by: w.created_by,
    created_at: iso(w.created_ms),
    updated_at: iso(w.updated_ms),
    ended_early_at: w.ended_early_ms === null ? null : iso(w.ended_early_ms),
    active: isActive(w, nowMs),
  };
}

function isIanaTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

function notFound(id: string): AppError {
  return new AppError('maintenance/not_found', 'No such maintenance window', { details: { id } });
}

/** Start and end of a window from its input: `ends_at`, or `starts_at` + `duration_minutes`; checked. */
function span(input: WindowInput): { starts_ms: number; ends_ms: number | null } {
  const starts = Date.parse(input.starts_at);
  const ends = input.ends_at ? Date.parse(input.ends_at) : input.duration_minutes ? starts + input.duration_minutes * 60_000 : null;
  const invalid = (message: string) => new AppError('maintenance/invalid', message);
  if (input.ends_at && input.duration_minutes) throw invalid('Give either ends_at or duration_minutes, not both');
  if (ends === null && !input.recurrence) throw invalid('A one-off window needs ends_at or duration_minutes');
  if (ends !== null && ends <= starts) throw invalid('The window must end after it starts');
  if (input.recurrence && !isIanaTimeZone(input.recurrence.timezone)) throw invalid('Unknown time zone');
  return { starts_ms: starts, ends_ms: ends };
}

/**
 * Maintenance windows: while one is in force, matching notifications are recorded as
 * `suppressed` instead of being sent, escalation skips matching problems, and `host_silence` is
 * not opened for the hosts it covers. Events are stored and correlated as usual. Who may manage
 * windows is the `maintenance.managers` setting (admins, or monitors too); everyone signed in reads them.
 */
export class MaintenanceService {
  private readonly listeners = new Set<() => Promise<void>>();

  constructor(
    private readonly repo: MaintenanceRepo,
    private readonly settings: SettingsService,
    private readonly clock: Clock,
    private readonly audit: Pick<AuditService, 'record'>,
    private readonly groups: GroupDefinitions,
    private readonly hosts: Pick<HostsRepo, 'list'>,
  ) {}

  /** The windows with the definitions of the groups they name, read now. */
  private async withGroups(windows: MaintenanceWindowRecord[]): Promise<InForceWindow[]> {
    const named = [...new Set(windows.flatMap((w) => w.group_ids))];
    const defs = named.length === 0 ? [] : await this.groups(named);
    return windows.map((w) => ({ ...w, groups: defs.filter((g) => w.group_ids.includes(g.id)) }));
  }

  /** Awaited after every change, so a window is in force for notifications when its create/update/end answers. */
  onChange(listener: () => Promise<void>): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Whether this user may create, edit and end windows (the console shows its buttons accordingly). */
  async canManage(user: SessionUser): Promise<boolean> {
    return user.role === 'admin' || (await this.settings.get('maintenance')).managers === 'operators';
  }

  private async mayManage(user: SessionUser): Promise<void> {
    if (!(await this.canManage(user))) throw new AppError('auth/forbidden', 'Only admins may manage maintenance windows');
  }

  private async changed(): Promise<void> {
    await Promise.all([...this.listeners].map((l) => l()));
  }

  async list(): Promise<MaintenanceWindowView[]> {
    const now = this.clock.now();
    return (await this.repo.list()).map((w) => view(w, now));
  }

  async byId(id: string): Promise<MaintenanceWindowView> {
    const w = await this.repo.byId(id);
    if (!w) throw notFound(id);
    return view(w, this.clock.now());
  }

  /** Windows in force now covering `hostname` (by name, group or every host); all of them without a host. */
  async active(hostname?: string): Promise<MaintenanceWindowView[]> {
    const now = this.clock.now();
    const windows = await this.withGroups(await this.repo.current(now));
    const named = (hosts: Host[]) => hosts.filter((h) => h.hostname.toLowerCase() === hostname?.toLowerCase());
    const host = hostname === undefined ? null : { hostname, hosts: namesGroups(windows) ? named(await this.hosts.list()) : [] };
    return activeForHost(windows, host, now).map((w) => view(w, now));
  }

  /** Windows that can matter now or later, with the groups they name (for the notifier's cache). */
  async current(): Promise<InForceWindow[]> {
    return this.withGroups(await this.repo.current(this.clock.now()));
  }

  /** For the silence scan: a test of "is this host's silence held back now". */
  async silencedHosts(nowMs: number): Promise<(host: GroupHost) => boolean> {
    const windows = await this.withGroups(await this.repo.current(nowMs));
    return (host) => silencesHost(windows, host, nowMs);
  }

  async create(input: WindowInput, actor: Actor & { user: SessionUser }): Promise<MaintenanceWindowView> {
    await this.mayManage(actor.user);
    const now = this.clock.now();
    const record: MaintenanceWindowRecord = {
      id: randomUUID(),
      hosts: [...new Set(input.hosts.map((h) => h.toLowerCase()))],
      group_ids: await this.knownGroups(input.group_ids),
      type_prefixes: input.type_prefixes,
      rules: input.rules,
      ...span(input),
      recurrence: input.recurrence,
      reason: input.reason,
      created_by: actor.user.username,
      created_ms: now,
      updated_ms: now,
      ended_early_ms: null,
    };
    await this.repo.insert(record);
    await this.audit.record({ action: 'maintenance.created', actor, target: `maintenance:${record.id}`, details: this.summary(record) });
    await this.changed();
    return view(record, now);
  }

  async update(id: string, input: WindowInput, actor: Actor & { user: SessionUser }): Promise<MaintenanceWindowView> {
    const current = await this.repo.byId(id);
    if (!current) throw notFound(id);
    await this.mayManage(actor.user);
    const now = this.clock.now();
    const record: MaintenanceWindowRecord = {
      ...current,
      hosts: [...new Set(input.hosts.map((h) => h.toLowerCase()))],
      group_ids: await this.knownGroups(input.group_ids),
      type_prefixes: input.type_prefixes,
      rules: input.rules,
      ...span(input),
      recurrence: input.recurrence,
      reason: input.reason,
      updated_ms: now,
      ended_early_ms: null,
    };
    if (!(await this.repo.replace(record))) throw notFound(id);
    await this.audit.record({ action: 'maintenance.updated', actor, target: `maintenance:${id}`, details: this.summary(record) });
    await this.changed();
    return view(record, now);
  }

  /** Ends the window now. Nothing held back during it is sent afterwards. */
  async end(id: string, actor: Actor & { user: SessionUser }): Promise<MaintenanceWindowView> {
    const current = await this.repo.byId(id);
    if (!current) throw notFound(id);
    await this.mayManage(actor.user);
    const now = this.clock.now();
    if (current.ends_ms !== null && current.ends_ms <= now) throw new AppError('maintenance/already_ended', 'The window has already ended');
    const record = { ...current, ends_ms: Math.max(now, current.starts_ms), ended_early_ms: now, updated_ms: now };
    await this.repo.replace(record);
    await this.audit.record({ action: 'maintenance.ended', actor, target: `maintenance:${id}` });
    await this.changed();
    return view(record, now);
  }

  /** The groups a window names, each once; 400 naming `group_ids` when one does not exist (the window itself may). */
  private async knownGroups(ids: readonly string[]): Promise<string[]> {
    const wanted = [...new Set(ids)];
    if (wanted.length === 0) return [];
    const known = new Set((await this.groups(wanted)).map((g) => g.id));
    const unknown = wanted.filter((id) => !known.has(id));
    if (unknown.length > 0) throw invalidParameter('group_ids', `no host group has the id ${unknown.map((id) => JSON.stringify(id)).join(', ')}`);
    return wanted;
  }

  private summary(w: MaintenanceWindowRecord): Record<string, unknown> {
    return { hosts: w.hosts.length, groups: w.group_ids.length, type_prefixes: w.type_prefixes, rules: w.rules, recurring: w.recurrence !== null };
  }
}
