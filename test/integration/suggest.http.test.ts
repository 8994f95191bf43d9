import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api, userToken } from '../helpers/auth.js';
import { ManualClock } from '../helpers/clock.js';
import { ingestEvent as ingest, isoAt, startTestSac, type TestSac } from '../helpers/daemon.js';
import { STORE_KINDS } from '../helpers/stores.js';
import { trpc } from '../peers/trpc.js';

const NOW = Date.parse('2026-06-03T12:00:00.000Z');
const MIN = 60_000;

describe.each(STORE_KINDS)('suggestions and substring filters on %s', (kind) => {
  let t: TestSac;
  let admin: string;
  let monitor: string;
  const clock = new ManualClock(NOW);
  const get = async (path: string, token: string | null = monitor) => api(t, 'GET', path, { token });
  const suggest = async (field: string, prefix?: string, limit?: number) => {
    const query = new URLSearchParams({ field, ...(prefix !== undefined ? { prefix } : {}), ...(limit !== undefined ? { limit: String(limit) } : {}) });
    const res = await get(`/api/v1/suggestions?${query}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.values as string[];
  };

  beforeAll(async () => {
    t = await startTestSac(kind, { SAC_SILENCE_SCAN_SECONDS: '3600' }, { clock });
    admin = await adminToken(t);
    monitor = await userToken(t, 'monitor');
    const at = (m: number) => isoAt(NOW - m * MIN);
    await ingest(t, { host: { hostname: 'rdg01' }, type: 'rdp.login.failed', severity: 'warning', title: 'failed', occurred_at: at(1), details: { user: 'Ivanov', ip_address: '198.51.100.7' } });
    await ingest(t, { host: { hostname: 'rdg01' }, type: 'rdg.connection.success', severity: 'info', title: 'gateway', occurred_at: at(2), details: { user: 'ivanova', external_ip: '203.0.113.5' } });
    await ingest(t, { host: { hostname: 'WEB01' }, type: 'ssh.login.failed', severity: 'warning', title: 'ssh', occurred_at: at(3), details: { user: 'Петров', ip_address: '-' } });
    await ingest(t, { host: { hostname: 'oldweb' }, type: 'auth.account.locked', severity: 'critical', title: 'locked', occurred_at: at(4), details: { user: 'root' } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('offers host names, users, addresses, types and rules containing the text, those starting with it first', async () => {
    expect(await suggest('host', 'RDG')).toEqual(['rdg01']);
    expect(await suggest('host', 'web')).toEqual(['WEB01', 'oldweb']);
    expect(await suggest('user', 'IVAN')).toEqual(['Ivanov', 'ivanova']);
    expect(await suggest('user', 'пет')).toEqual(['Петров']);
    // Only addresses: the agents' `-` for a local logon is not one.
    expect(await suggest('ip', '')).not.toContain('-');
    expect(await suggest('ip', '198')).toEqual(['198.51.100.7']);
    expect(await suggest('ip', '.5')).toContain('203.0.113.5');
    expect(await suggest('type', 'login')).toEqual(['rdp.login.failed', 'ssh.login.failed']);
    expect(await suggest('type', 'rd')).toEqual(['rdg.connection.success', 'rdp.login.failed']);
    expect(await suggest('rule', 'flap')).toEqual(['rdg_flap']);
    expect(await suggest('user', 'i', 1)).toEqual(['Ivanov']);
    expect(await suggest('user', 'zzz')).toEqual([]);

    const viaTrpc = await trpc(t, monitor, 'query', 'suggest.values', { field: 'host', prefix: 'RDG' });
    expect(viaTrpc.data).toEqual({ field: 'host', values: ['rdg01'] });
  });

  it('refuses unbounded or unknown input and callers without a session', async () => {
    expect((await get('/api/v1/suggestions?field=host&limit=51')).status).toBe(400);
    expect((await get(`/api/v1/suggestions?field=host&prefix=${'a'.repeat(129)}`)).status).toBe(400);
    expect((await get('/api/v1/suggestions?field=password')).status).toBe(400);
    expect((await get('/api/v1/suggestions?field=host', null)).status).toBe(401);
  });

  it('filters events by text in the host and user names and problems by text in the host and rule, case-insensitive', async () => {
    const events = async (query: string) => ((await get(`/api/v1/events?${query}`)).body.items as { hostname: string; actor_user: string }[]);
    expect((await events('hostname=RDG')).map((e) => e.hostname)).toEqual(['rdg01', 'rdg01']);
    expect((await events('user=IVAN')).map((e) => e.actor_user)).toEqual(['Ivanov', 'ivanova']);
    expect((await events('user=пЕт')).map((e) => e.actor_user)).toEqual(['Петров']);
    expect(await events('user=%25')).toEqual([]);
    // A pivot on one user: the whole name, any case, never a longer name containing it.
    expect((await events('user=ivanov&user_exact=true')).map((e) => e.actor_user)).toEqual(['Ivanov']);
    expect((await events('user=%D0%BF%D0%B5%D1%82%D1%80%D0%BE%D0%B2&user_exact=true')).map((e) => e.actor_user)).toEqual(['Петров']);
    expect(await events('user=%D0%BF%D0%B5%D1%82&user_exact=true')).toEqual([]);
    expect((await get('/api/v1/events?user_exact=true')).body.error).toMatchObject({ code: 'request/invalid_parameter', details: { parameter: 'user_exact' } });

    const problems = async (query: string) => ((await get(`/api/v1/problems?${query}`, admin)).body.items as { hostname: string; rule: string }[]);
    expect((await problems('rule=SEVER&host=OLD')).map((p) => p.hostname)).toEqual(['oldweb']);
    expect((await problems('host=RDG')).map((p) => p.hostname)).toEqual(['rdg01']);
    expect(await problems('rule=flap')).toEqual([]);
  });
});
