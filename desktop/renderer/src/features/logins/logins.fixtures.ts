import type { LoginSighting, ProblemEvidence, UserBaselineView } from '../../../../../shared/src/login-intel.schema';

/** Contract-shaped login intelligence for the console's unit tests. */
export function sighting(over: Partial<LoginSighting> = {}): LoginSighting {
  return { event_id: 'ev-1', at: '2026-11-20T09:15:00.000Z', host_id: 'h-web1', hostname: 'web1', address: '203.0.113.7', country: 'DE', asn: 3320, as_org: 'Deutsche Telekom AG', ...over };
}

export function baseline(over: Partial<UserBaselineView> = {}): UserBaselineView {
  const hours = Array.from({ length: 24 }, (_, h) => (h >= 8 && h <= 17 ? 4 : 0));
  return {
    user: 'alice',
    first_seen: '2026-10-01T08:00:00.000Z',
    learning_until: '2026-10-31T08:00:00.000Z',
    logins: 40,
    countries: [{ value: 'DE', count: 40, last_seen: '2026-11-19T17:00:00.000Z' }],
    asns: [{ value: 3320, as_org: 'Deutsche Telekom AG', count: 40, last_seen: '2026-11-19T17:00:00.000Z' }],
    hours,
    hosts: [{ value: 'web1', count: 40, last_seen: '2026-11-19T17:00:00.000Z' }],
    ...over,
  };
}

export const EVIDENCE: Record<ProblemEvidence['kind'], ProblemEvidence> = {
  login_after_failures: {
    kind: 'login_after_failures',
    address: '198.51.100.9',
    user: 'alice',
    login: sighting({ address: '198.51.100.9', country: 'BR', asn: 28573, as_org: 'Claro NXT' }),
    failures: [
      { host_id: 'h-web1', hostname: 'web1', count: 3, last_at: '2026-11-20T09:14:00.000Z' },
      { host_id: 'h-db1', hostname: 'db1', count: 2, last_at: '2026-11-20T09:10:00.000Z' },
    ],
  },
  distributed_bruteforce: {
    kind: 'distributed_bruteforce',
    address: '198.51.100.66',
    window_minutes: 10,
    hosts: ['web1', 'web2', 'db1', 'dc1'].map((h, i) => ({ host_id: `h-${h}`, hostname: h, count: 5 + i, last_at: `2026-11-20T09:1${i}:00.000Z` })),
  },
  new_source: {
    kind: 'new_source',
    user: 'alice',
    login: sighting({ event_id: 'ev-new', at: '2026-11-20T03:05:00.000Z', address: '203.0.113.50', country: 'BR', asn: 28573, as_org: 'Claro NXT' }),
    new_country: 'BR',
    new_asn: 28573,
    baseline: baseline(),
  },
  impossible_travel: {
    kind: 'impossible_travel',
    user: 'alice',
    from: sighting({ event_id: 'ev-a', at: '2026-11-20T09:00:00.000Z' }),
    to: sighting({ event_id: 'ev-b', at: '2026-11-20T09:30:00.000Z', hostname: 'web2', host_id: 'h-web2', address: '203.0.113.80', country: 'US', asn: 7922, as_org: 'Comcast' }),
    distance_km: 6412.4,
    minutes: 30,
    speed_kmh: 12824.8,
    limit_kmh: 900,
  },
  mass_silence: {
    kind: 'mass_silence',
    share_percent: 80,
    hosts: [
      { host_id: 'h-web1', hostname: 'web1', last_seen: '2026-11-20T09:00:00.000Z' },
      { host_id: 'h-web2', hostname: 'web2', last_seen: null },
    ],
  },
};
