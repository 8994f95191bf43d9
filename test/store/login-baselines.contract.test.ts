import { describe, expect, it } from 'vitest';
import { parseEvent, type SourceGeo } from '../../shared/src/index.js';
import { DEFAULT_CROSS_HOST_RULES } from '../../daemon/src/correlation/index.js';
import { createIngestPipeline } from '../../daemon/src/ingest/index.js';
import { actorUser, hostObservation } from '../../daemon/src/ingest/ingest.rules.js';
import { type BaselineValue, type Store } from '../../daemon/src/store/index.js';
import { buildEvent } from '../helpers/events.js';
import { CORRELATION } from '../helpers/services.js';
import { daemonStoresPerTest, STORE_KINDS } from '../helpers/stores.js';

const T0 = Date.parse('2026-06-03T09:00:00.000Z');
const HOUR = 3_600_000;
/** A one-day learning period, so a user is learnt within the test's few hours of logins. */
const settings = { ...CORRELATION, crossHost: { ...DEFAULT_CROSS_HOST_RULES, newSource: { ...DEFAULT_CROSS_HOST_RULES.newSource, learningMs: 24 * HOUR } } };
const GEO: Record<string, SourceGeo> = {
  DE: { ip: '198.51.100.10', scope: 'public', country: 'DE', asn: 64500, as_org: 'Deutsche Doc' },
  GB: { ip: '192.0.2.10', scope: 'public', country: 'GB', asn: 64501, as_org: 'Doc Net' },
};

/** A Windows-agent RDP logon (4624) of `user` on `hostname` at `at`, from the country's address, enriched as ingest enriches it. */
function success(hostname: string, at: number, country: keyof typeof GEO, user = 'CORP\\alice') {
  const parsed = parseEvent(
    buildEvent({
      type: 'rdp.login.success',
      severity: 'info',
      title: 'RDP login',
      summary: `4624 ${user} from ${GEO[country].ip}`,
      occurred_at: new Date(at).toISOString(),
      source: { agent_instance_id: `agent-${hostname}` },
      host: { hostname, display_name: `${hostname} (10.0.0.5)` },
      details: { user, ip_address: GEO[country].ip, logon_type: 10, event_id_windows: 4624 },
    }),
  );
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  const e = parsed.event;
  return { event: e, host: hostObservation(e, at), occurred_ms: at, received_ms: at, actor_user: actorUser(e), agent_version: e.source.product_version, source_geo: GEO[country] };
}

/** Commits one login through the real ingest pipeline, received when it occurred. */
async function ingest(store: Store, item: ReturnType<typeof success>): Promise<void> {
  await createIngestPipeline(store).commit([item], () => ({ now_ms: item.occurred_ms, correlation: settings, notify: null }));
}

describe.each(STORE_KINDS)('per-user login baselines with several daemons on %s', (kind) => {
  const daemons = daemonStoresPerTest(kind);

  it('40 logins of one user committed at once (by four daemons on MongoDB) count exactly, and open one new_source problem', async () => {
    // Four daemons on MongoDB; SQLite's store is one daemon's, its commits one after the other.
    const { on } = await daemons.open(4);
    await ingest(on(0), success('WEB01', T0 - 20 * HOUR, 'DE'));
    await ingest(on(1), success('WEB01', T0 - HOUR, 'DE'));
    // Learnt since T0 + 4 h: forty logins from a new country, each its own commit, all at once.
    const logins = Array.from({ length: 40 }, (_, i) => success(`WEB0${(i % 4) + 1}`, T0 + 5 * HOUR + i * 1000, 'GB', i % 2 ? 'alice@corp.example' : 'ALICE'));
    await Promise.all(logins.map((item, i) => ingest(on(i), item)));

    const values = await on(2).loginBaselines.of(['alice']);
    const count = (dim: string, value: string) => values.find((v) => v.dim === dim && v.value === value)?.count;
    expect(count('user', '')).toBe(42);
    expect([count('country', 'GB'), count('country', 'DE'), count('asn', '64501'), count('asn', '64500')]).toEqual([40, 2, 40, 2]);
    expect(values.find((v) => v.dim === 'user')).toMatchObject({ first_ms: T0 - 20 * HOUR, last_ms: T0 + 5 * HOUR + 39_000 });
    // The newest login's sighting, whichever daemon wrote last.
    expect(values.find((v) => v.dim === 'country' && v.value === 'GB')?.sighting?.event_id).toBe(logins[39].event.event_id);
    const problems = await on(3).problems.list({ rule: 'new_source', hidden: [], limit: 10 });
    expect(problems).toHaveLength(1);
    expect(await on(0).problems.evidence(problems[0].id)).toMatchObject({ kind: 'new_source', user: 'alice', new_country: 'GB', new_asn: 64501 });
    // The first login (T0 - 20 h) is older than the one-day period the user's logins are kept for.
    expect((await on(1).userLogins.list('alice', 500)).length).toBe(41);
  });

  it('adds counts to stored values, keeps the newest label whatever order the adds come in, and starts a pruned value afresh', async () => {
    const s = (await daemons.open(1)).on(0);
    const value = (over: Partial<BaselineValue>): BaselineValue => ({ user: 'bob', dim: 'asn', value: '64500', label: 'Old Org', count: 1, first_ms: T0, last_ms: T0, sighting: null, ...over });
    await s.loginBaselines.add([value({ count: 2, last_ms: T0 + HOUR, label: 'New Org' }), value({ dim: 'user', value: '', label: null })], T0 - HOUR);
    // An older login added later: counted, its label not taken; one add holding the value twice.
    await s.loginBaselines.add([value({ first_ms: T0 - HOUR, last_ms: T0 - HOUR }), value({ dim: 'user', value: '', label: null, first_ms: T0 + HOUR, last_ms: T0 + HOUR })], T0 - 2 * HOUR);
    const of = async () => Object.fromEntries((await s.loginBaselines.of(['bob'])).map((v) => [v.dim, { count: v.count, first_ms: v.first_ms, last_ms: v.last_ms, label: v.label }]));
    expect((await of()).asn).toEqual({ count: 3, first_ms: T0 - HOUR, last_ms: T0 + HOUR, label: 'New Org' });
    await s.loginBaselines.add([value({ count: 3, first_ms: T0 + 2 * HOUR, last_ms: T0 + 2 * HOUR, label: 'Newest Org' })], T0 - 2 * HOUR);
    expect(await of()).toEqual({
      asn: { count: 6, first_ms: T0 - HOUR, last_ms: T0 + 2 * HOUR, label: 'Newest Org' },
      user: { count: 2, first_ms: T0, last_ms: T0 + HOUR, label: null },
    });
    // Past the horizon the user row goes; the asn row, seen again, starts afresh.
    await s.loginBaselines.add([value({ count: 4, first_ms: T0 + 10 * HOUR, last_ms: T0 + 10 * HOUR, label: 'Later Org' })], T0 + 5 * HOUR);
    expect(await of()).toEqual({ asn: { count: 4, first_ms: T0 + 10 * HOUR, last_ms: T0 + 10 * HOUR, label: 'Later Org' } });
  });
});
