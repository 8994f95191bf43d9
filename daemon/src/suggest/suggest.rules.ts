import { isIP } from 'node:net';
import type { CatalogueValue, CommittedEvent } from '../store/index.js';

/** Where the agents put the remote address of an event (the events list's `ip` filter reads the same fields). */
const IP_DETAILS = ['ip_address', 'source_ip', 'external_ip'] as const;
/** Longest user name the catalogue keeps (the events list's `user` filter takes 256 characters). */
const USER_MAX = 256;

/** The distinct users, addresses and types of a batch's events, for the value catalogue. */
export function eventValues(events: readonly CommittedEvent[]): CatalogueValue[] {
  const out = new Map<string, CatalogueValue>();
  const add = (field: CatalogueValue['field'], value: string) => out.set(`${field}\n${value}`, { field, value });
  for (const c of events) {
    add('type', c.event.type);
    if (c.actor_user && c.actor_user.length <= USER_MAX) add('user', c.actor_user);
    const details = c.event.details as Record<string, unknown> | undefined;
    for (const key of IP_DETAILS) {
      const v = details?.[key];
      if (typeof v === 'string' && isIP(v) !== 0) add('ip', v);
    }
  }
  return [...out.values()];
}

/**
 * Up to `limit` distinct `values` whose lower-cased form contains `text` (lower-cased): those
 * starting with it first, then by the lower-cased value — the order the catalogue answers in.
 */
export function rankMatches(values: Iterable<string>, text: string, limit: number): string[] {
  const found = new Map<string, string>();
  for (const v of values) {
    const folded = v.toLowerCase();
    if (folded.includes(text) && !found.has(v)) found.set(v, folded);
  }
  return [...found]
    .sort(([va, a], [vb, b]) => Number(!a.startsWith(text)) - Number(!b.startsWith(text)) || (a < b ? -1 : a > b ? 1 : va < vb ? -1 : va > vb ? 1 : 0))
    .slice(0, limit)
    .map(([v]) => v);
}
