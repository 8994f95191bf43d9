import type { ProblemEvidence, LoginSighting } from '../../../../../shared/src/login-intel.schema';
import { localSeconds } from '../../utils/format';

/** How far back the events of a success after failures go: the store keeps a source's failures 24 h. */
const FAILURES_KEPT_MS = 24 * 3600_000;

/** A user's page (`/logins/:user`). */
export function userPage(user: string): string {
  return `/logins/${encodeURIComponent(user)}`;
}

/** One login's event in Events, listed among the events of its address. */
export function sightingEvent(s: Pick<LoginSighting, 'event_id' | 'address'>): { path: '/events'; query: Record<string, string> } {
  return { path: '/events', query: s.address ? { ip: s.address, event: s.event_id } : { event: s.event_id } };
}

/**
 * The Events filters that show what a login-intelligence problem saw: the address and the time
 * for the address rules, the new address for a new source. Null for impossible travel (its two
 * logins link to their events; the user page lists them all: Events filters by the name exactly
 * as an agent wrote it, the rules by the normalised user) and for a mass silence (its evidence is
 * the hosts' missing events).
 */
export function evidenceEvents(e: ProblemEvidence): { path: '/events'; query: Record<string, string> } | null {
  const events = (query: Record<string, string | null>) => ({
    path: '/events' as const,
    query: Object.fromEntries(Object.entries(query).filter((kv): kv is [string, string] => kv[1] !== null)),
  });
  switch (e.kind) {
    case 'login_after_failures':
      return events({ ip: e.address, from: localSeconds(e.login.at, -FAILURES_KEPT_MS), to: localSeconds(e.login.at, 1000) });
    case 'distributed_bruteforce': {
      if (!e.hosts.length) return events({ ip: e.address });
      const times = e.hosts.map((h) => Date.parse(h.last_at));
      const last = new Date(Math.max(...times)).toISOString();
      return events({ ip: e.address, from: localSeconds(new Date(Math.min(...times)).toISOString(), -e.window_minutes * 60_000), to: localSeconds(last, 1000) });
    }
    case 'new_source':
      return e.login.address ? events({ ip: e.login.address }) : null;
    case 'impossible_travel':
    case 'mass_silence':
      return null;
  }
}

/** The hour of day (UTC, 0–23) of an instant: what the baseline's hours count. */
export function utcHour(iso: string): number {
  return new Date(iso).getUTCHours();
}
