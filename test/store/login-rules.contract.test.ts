import { afterEach, describe, expect, it } from 'vitest';
import { parseEvent } from '../../shared/src/index.js';
import { loadConfig } from '../../daemon/src/config.js';
import { createIngestPipeline } from '../../daemon/src/ingest/index.js';
import { actorUser, hostObservation } from '../../daemon/src/ingest/ingest.rules.js';
import { openStore, type Problem, type Store } from '../../daemon/src/store/index.js';
import { buildEvent } from '../helpers/events.js';
import { CORRELATION } from '../helpers/services.js';
import { STORE_KINDS, storeEnv, tempDir } from '../helpers/stores.js';

const T0 = Date.parse('2026-06-03T09:00:00.000Z');
const MINUTE = 60_000;
const ATTACKER = '203.0.113.77';
const settings = CORRELATION;

/** An RDP logon as the Windows agent sends it (4625 failed, 4624 success) on `hostname`, `minutes` after T0. */
function rdpLogin(hostname: string, outcome: 'failed' | 'success', minutes: number, ip = ATTACKER, user = 'administrator') {
  return buildEvent({
    type: `rdp.login.${outcome}`,
    severity: outcome === 'failed' ? 'warning' : 'info',
    title: outcome === 'failed' ? 'RDP login failed' : 'RDP login',
    summary: `${outcome === 'failed' ? 4625 : 4624} ${user} from ${ip}`,
    occurred_at: new Date(T0 + minutes * MINUTE).toISOString(),
    source: { agent_instance_id: `agent-${hostname}` },
    host: { hostname, display_name: `${hostname} (10.0.0.5)` },
    details: { user, ip_address: ip, logon_type: 10, event_id_windows: outcome === 'failed' ? 4625 : 4624 },
  });
}

/** Commits events through the real ingest pipeline, as received at the last one's time. */
async function ingest(store: Store, events: ReturnType<typeof buildEvent>[], crossHost = settings.crossHost): Promise<void> {
  const items = events.map((input) => {
    const parsed = parseEvent(input);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
    const e = parsed.event;
    const occurred = Date.parse(e.occurred_at);
    return { event: e, host: hostObservation(e, occurred), occurred_ms: occurred, received_ms: occurred, actor_user: actorUser(e), agent_version: e.source.product_version };
  });
  const now = Math.max(...items.map((i) => i.occurred_ms));
  await createIngestPipeline(store).commit(items, () => ({ now_ms: now, correlation: { ...settings, crossHost }, notify: null }));
}

const byRule = (store: Store, rule: string): Promise<Problem[]> => store.problems.list({ rule, hidden: [], limit: 100 });

describe.each(STORE_KINDS)('cross-host login rules on %s', (kind) => {
  const stores: Store[] = [];
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
  });
  /** `count` connections (daemons) to one fresh store. */
  async function open(count = 1): Promise<Store[]> {
    const result = loadConfig(storeEnv(kind, tempDir()));
    if (!result.ok) throw new Error(result.problems.join('; '));
    const config = result.config.store;
    for (let i = 0; i < count; i++) stores.push(await openStore(config));
    return stores;
  }

  it('a success after three failures of its address on other hosts opens login_after_failures, naming address, user, host and count', async () => {
    const [store] = await open();
    await ingest(store, [rdpLogin('RDS01', 'failed', 0), rdpLogin('RDS02', 'failed', 1)]);
    await ingest(store, [rdpLogin('RDS03', 'success', 2, ATTACKER, 'CORP\\Administrator')]);
    expect(await byRule(store, 'login_after_failures')).toEqual([]);

    await ingest(store, [rdpLogin('RDS02', 'failed', 3)]);
    await ingest(store, [rdpLogin('RDS03', 'success', 4, ATTACKER, 'CORP\\Administrator')]);
    const [problem, ...more] = await byRule(store, 'login_after_failures');
    expect(more).toEqual([]);
    expect(problem).toMatchObject({
      type: 'login.after_failures',
      hostname: 'RDS03',
      severity: 'high',
      count: 1,
      title: `Login of administrator on RDS03 from ${ATTACKER} after 3 failed logins`,
    });
    // The success and the three failures behind it are on its timeline.
    expect((await store.problems.timeline(problem.id, 10)).map((l) => l.counted).sort()).toEqual([false, false, false, true]);
  });

  it('failures older than the window, from another address, or with the rule off open nothing', async () => {
    const [store] = await open();
    await ingest(store, [rdpLogin('RDS01', 'failed', 0), rdpLogin('RDS01', 'failed', 1), rdpLogin('RDS01', 'failed', 2), rdpLogin('RDS09', 'failed', 20, '198.51.100.9')]);
    await ingest(store, [rdpLogin('RDS01', 'success', 20)]);
    const off = { ...settings.crossHost, loginAfterFailures: { ...settings.crossHost.loginAfterFailures, enabled: false } };
    await ingest(store, [rdpLogin('RDS01', 'failed', 21), rdpLogin('RDS01', 'failed', 22), rdpLogin('RDS01', 'failed', 23), rdpLogin('RDS01', 'success', 24)], off);
    expect(await byRule(store, 'login_after_failures')).toEqual([]);
  });

  it('one address failing on four hosts opens one distributed_bruteforce problem naming them; on three it does not', async () => {
    const [store] = await open();
    await ingest(store, [rdpLogin('RDS01', 'failed', 0), rdpLogin('RDS02', 'failed', 1), rdpLogin('RDS02', 'failed', 2)]);
    await ingest(store, [rdpLogin('RDS03', 'failed', 3)]);
    // A private address counts (an attacker inside the network), unlike for impossible travel.
    await ingest(store, ['RDS01', 'RDS02', 'RDS03'].map((h, i) => rdpLogin(h, 'failed', 4 + i, '10.20.0.8')));
    expect(await byRule(store, 'distributed_bruteforce')).toEqual([]);

    await ingest(store, [rdpLogin('RDS04', 'failed', 8), rdpLogin('RDS04', 'failed', 8.5, '10.20.0.8')]);
    await ingest(store, [rdpLogin('RDS05', 'failed', 9)]);
    const problems = await byRule(store, 'distributed_bruteforce');
    expect(problems.map((p) => p.title).sort()).toEqual([
      'Failed logins from 10.20.0.8 on 4 hosts: RDS01, RDS02, RDS03, RDS04',
      `Failed logins from ${ATTACKER} on 4 hosts: RDS01, RDS02, RDS03, RDS04`,
    ]);
    expect(problems.find((p) => p.title.includes(ATTACKER))).toMatchObject({ type: 'login.distributed_bruteforce', severity: 'high', count: 2 });
  });

  // SQLite has one daemon (the file is its own); several daemons share a MongoDB store.
  it.skipIf(kind === 'sqlite')('with two daemons committing failures on different hosts at once, the fourth host opens exactly one problem', async () => {
    const [a, b] = await open(2);
    await ingest(a, [rdpLogin('RDS01', 'failed', 0), rdpLogin('RDS02', 'failed', 0)]);
    await Promise.all([ingest(a, [rdpLogin('RDS03', 'failed', 1)]), ingest(b, [rdpLogin('RDS04', 'failed', 1)])]);
    const problems = await byRule(a, 'distributed_bruteforce');
    expect(problems).toHaveLength(1);
    expect(problems[0].title).toBe(`Failed logins from ${ATTACKER} on 4 hosts: RDS01, RDS02, RDS03, RDS04`);
  });
});
