import { groupMembers, type GroupDefinition, type GroupHost } from '../groups/index.js';
import type { MaintenanceWindowRecord } from '../store/index.js';

/**
 * Maintenance window rules: pure functions, no I/O.
 *
 * A window is in force from `starts_ms` until `ends_ms` (exclusive); with a weekly recurrence only
 * during its occurrences (local wall-clock time in the recurrence's zone) inside that span.
 * Matching: every non-empty matcher must match. Hosts compare case-insensitively; a window naming
 * host groups also covers the hosts that are members of one of them when the notification comes
 * (named in the group or matched by its rules); a type prefix matches the type itself and
 * everything below it (`rdp.login` → `rdp.login.failed`). A window naming rules matches problems
 * of those rules only, never a plain event notification.
 */
export type WindowMatcher = Pick<MaintenanceWindowRecord, 'hosts' | 'group_ids' | 'type_prefixes' | 'rules'> & {
  /** The definitions of the groups it names, as last read (a deleted group has none: it covers no host). */
  groups?: readonly GroupDefinition[];
};
export type WindowTiming = Pick<MaintenanceWindowRecord, 'starts_ms' | 'ends_ms' | 'recurrence'>;
/** A stored window with the definitions of the groups it names (what matching needs). */
export type InForceWindow = MaintenanceWindowRecord & { groups: GroupDefinition[] };

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const DAY_MIN = 24 * 60;
const WEEK_MIN = 7 * DAY_MIN;

/** Weekday (0 = Sunday) and minute of the day of an instant in an IANA zone. */
export function localWeekMinute(ms: number, timeZone: string): { weekday: number; minute: number } {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(new Date(ms));
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? '';
  return { weekday: WEEKDAYS.indexOf(get('weekday')), minute: Number(get('hour')) * 60 + Number(get('minute')) };
}

/** True while the window is in force at `nowMs`. */
export function isActive(w: WindowTiming, nowMs: number): boolean {
  if (nowMs < w.starts_ms || (w.ends_ms !== null && nowMs >= w.ends_ms)) return false;
  const r = w.recurrence;
  if (!r) return true;
  const [h, m] = r.start.split(':').map(Number);
  const startMin = h! * 60 + m!;
  const now = localWeekMinute(nowMs, r.timezone);
  return r.weekdays.some((day) => {
    // Minutes since this weekday's occurrence began, looking back at most one week.
    const elapsed = (((now.weekday - day) * DAY_MIN + now.minute - startMin) % WEEK_MIN + WEEK_MIN) % WEEK_MIN;
    return elapsed < r.duration_minutes;
  });
}

function typeMatches(type: string, prefixes: readonly string[]): boolean {
  return prefixes.some((p) => {
    const prefix = p.endsWith('.') ? p.slice(0, -1) : p;
    return type === prefix || type.startsWith(`${prefix}.`);
  });
}

/** What a notification is about: an event (no rule) or a problem (with its rule). */
export interface Subject {
  hostname: string;
  type: string;
  rule?: string;
  /** The host as it is now, for windows naming groups (without it, those cover it by name only). */
  host?: GroupHost;
}

/** Whether the window covers the subject's host: every host, by name, or as a member of a group it names. */
function coversHost(w: WindowMatcher, s: Pick<Subject, 'hostname' | 'host'>): boolean {
  if (w.hosts.length === 0 && w.group_ids.length === 0) return true;
  if (w.hosts.includes(s.hostname.toLowerCase())) return true;
  const host = s.host;
  return host !== undefined && (w.groups ?? []).some((g) => groupMembers(g, [host]).length > 0);
}

/** Whether any window names host groups (only then does matching need the host itself). */
export const namesGroups = (windows: readonly WindowMatcher[]) => windows.some((w) => w.group_ids.length > 0);

export function matches(w: WindowMatcher, s: Subject): boolean {
  if (!coversHost(w, s)) return false;
  if (w.type_prefixes.length > 0 && !typeMatches(s.type, w.type_prefixes)) return false;
  if (w.rules.length > 0 && (s.rule === undefined || !w.rules.includes(s.rule))) return false;
  return true;
}

/** The first window in force at `nowMs` that matches the subject, or null. */
export function suppressingWindow<W extends WindowMatcher & WindowTiming>(windows: readonly W[], s: Subject, nowMs: number): W | null {
  return windows.find((w) => isActive(w, nowMs) && matches(w, s)) ?? null;
}

/** True when a window in force covers the host's silence problem (host listed, in a group listed, or all hosts; no type filter, rule open). */
export function silencesHost(windows: readonly (WindowMatcher & WindowTiming)[], host: GroupHost, nowMs: number): boolean {
  return suppressingWindow(windows, { hostname: host.hostname, host, type: 'host.silence', rule: 'host_silence' }, nowMs) !== null;
}

/**
 * The windows in force at `nowMs` that cover this host — by name, as a member of a group, or every
 * host — (what the console badges show); every window in force without a host. `hosts`: the known
 * hosts of that name.
 */
export function activeForHost<W extends WindowMatcher & WindowTiming>(
  windows: readonly W[],
  host: { hostname: string; hosts: readonly GroupHost[] } | null,
  nowMs: number,
): W[] {
  const covers = (w: W) => host === null || coversHost(w, { hostname: host.hostname }) || host.hosts.some((h) => coversHost(w, { hostname: h.hostname, host: h }));
  return windows.filter((w) => isActive(w, nowMs) && covers(w));
}
