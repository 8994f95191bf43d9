import { createHash } from 'node:crypto';
import { compareSeverity, eventIp, mostSpecific, typeMatches, type Event, type Severity } from '../../../shared/src/index.js';

export { mostSpecific, typeMatches };

/** Problem rules: which rule raised a problem (part of its correlation key). */
export const PROBLEM_RULES = ['severity', 'rdg_flap', 'hardware_changed', 'host_silence', 'login_after_failures', 'distributed_bruteforce', 'mass_silence', 'host_activity', 'new_source', 'impossible_travel'] as const;
export type ProblemRule = (typeof PROBLEM_RULES)[number];

/** Types that never open a problem by severity: the agent's own bookkeeping. */
const NEVER_PROBLEM_TYPES = new Set(['agent.heartbeat', 'agent.inventory', 'agent.test']);

/** True when an event of this (possibly overridden) severity and type opens or joins a problem by the severity rule. */
export function opensProblem(type: string, severity: Severity): boolean {
  if (NEVER_PROBLEM_TYPES.has(type) || type.startsWith('report.')) return false;
  return compareSeverity(severity, 'warning') >= 0;
}

/** True when the type is hidden by any of the patterns (hidden types are stored but not shown or correlated). */
export function isHiddenType(type: string, hidden: readonly string[]): boolean {
  return hidden.some((p) => typeMatches(type, p));
}

/**
 * The severity SAC stores for an event: an override for its exact type wins over a prefix override,
 * a longer prefix over a shorter one; without one the agent's severity stays.
 */
export function effectiveSeverity(type: string, agentSeverity: Severity, overrides: Readonly<Record<string, Severity>>): Severity {
  return mostSpecific(type, overrides) ?? agentSeverity;
}

/** The correlation key: host + type + rule, plus the rule's own discriminator (e.g. user and IP of a gateway pair). */
export function problemKey(hostId: string, type: string, rule: ProblemRule, extra: readonly string[] = []): string {
  return [hostId, type, rule, ...extra].join('|');
}

/** The problem's stable fingerprint: a hash of its correlation key (same key, same fingerprint). */
export function problemFingerprint(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 32);
}

/**
 * Content fingerprint of an event (agent-contract.md): a restarted agent re-sends up to an hour of
 * Windows events under new `event_id`s; equal content means a replay, stored and linked but not counted.
 */
export function contentFingerprint(hostId: string, event: Event, actorUser: string | null, occurredMs: number): string {
  const d = event.details ?? {};
  const parts = [hostId, event.type, String(occurredMs), String(d.event_id_windows ?? ''), actorUser ?? '', eventIp(d) ?? ''];
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 40);
}

/** Problems about several hosts are keyed without one: `*` stands in the key's host part. */
export const ANY_HOST = '*';

/** Host names for a title: at most `shown`, the rest as a count. */
export function someNames(names: readonly string[], shown = 10): string {
  return names.slice(0, shown).join(', ') + (names.length > shown ? ` and ${names.length - shown} more` : '');
}

/** Occurred-time span of a problem or of a group of events. */
export interface Span {
  first_ms: number;
  last_ms: number;
}

/**
 * Window match, by occurred time: an event (or a cluster of events) belongs to a problem when it
 * lies within `windowMs` of the problem's span. Measured from both ends so that late, out-of-order
 * events (hours old) land in the problem whose time they fall into.
 */
export function withinWindow(problem: Span, events: Span, windowMs: number): boolean {
  return events.first_ms <= problem.last_ms + windowMs && events.last_ms >= problem.first_ms - windowMs;
}

/**
 * The links of a window cluster, each event once — counted when any of its occurrences counted it.
 * Every failure of a source links the same earlier failures, so without this a cluster of k
 * failures wrote about 50 × k timeline rows for 50 + k events.
 */
export function uniqueLinks<L extends { event_id: string; counted: boolean }>(linkLists: readonly (readonly L[])[]): L[] {
  const byId = new Map<string, L>();
  for (const links of linkLists) {
    for (const l of links) {
      const seen = byId.get(l.event_id);
      if (!seen) byId.set(l.event_id, l);
      else if (l.counted && !seen.counted) byId.set(l.event_id, { ...seen, counted: true });
    }
  }
  return [...byId.values()];
}

/**
 * Splits events of one correlation key into clusters in which consecutive events (by occurred
 * time) are at most `windowMs` apart: each cluster is one store round-trip into one problem.
 */
export function clusterByWindow<T extends { occurred_ms: number }>(items: readonly T[], windowMs: number): T[][] {
  const sorted = [...items].sort((a, b) => a.occurred_ms - b.occurred_ms);
  const clusters: T[][] = [];
  for (const item of sorted) {
    const current = clusters.at(-1);
    if (current && item.occurred_ms - current[current.length - 1].occurred_ms <= windowMs) current.push(item);
    else clusters.push([item]);
  }
  return clusters;
}

/** The higher of two severities. */
export function maxSeverity(a: Severity, b: Severity): Severity {
  return compareSeverity(a, b) >= 0 ? a : b;
}
