import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api, userToken } from '../helpers/auth.js';
import { TestClock } from '../helpers/clock.js';
import { ingestEvent, startTestSac, type TestSac } from '../helpers/daemon.js';
import { STORE_KINDS } from '../helpers/stores.js';
import { openStream } from '../helpers/stream.js';

const AGENT = '6c1d2f0a-7b3e-4f59-a8d2-0e4b9c7f1a23';
const QWINSTA = [
  ' SESSIONNAME       USERNAME                 ID  STATE   TYPE        DEVICE',
  ' services                                    0  Disc',
  '>rdp-tcp#3         alice                     2  Active',
  ' console           bob                       1  Conn',
  ' rdp-tcp                                 65536  Listen',
  '',
].join('\r\n');

/**
 * Plays the real agent (`Sac-Client.ps1`): polls with its Bearer key, reads every command key the
 * way PowerShell strict mode does (a missing key would abort its loop), posts one result.
 */
async function agentPoll(t: TestSac, agentId: string, key = t.apiKey) {
  const res = await fetch(`${t.url}/api/v1/agent/commands?agent_instance_id=${encodeURIComponent(agentId)}`, {
    headers: { Authorization: `Bearer ${key}` },
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = (await res.json()) as { commands: Record<string, unknown>[] };
  expect(Object.keys(body)).toEqual(['commands']);
  for (const c of body.commands) {
    for (const k of ['id', 'type', 'params', 'run_as']) if (!Object.hasOwn(c, k)) throw new Error(`strict mode: property ${k} missing`);
    expect(Object.keys(c).sort()).toEqual(['id', 'params', 'run_as', 'type']);
    expect(c.id).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(['qwinsta', 'logoff']).toContain(c.type);
    expect(c.run_as).toBeNull();
  }
  return body.commands as { id: string; type: string; params: Record<string, unknown>; run_as: null }[];
}

function agentResult(t: TestSac, id: string, body: unknown, opts: { key?: string | null; query?: string; raw?: string } = {}) {
  const key = opts.key === undefined ? t.apiKey : opts.key;
  return fetch(`${t.url}/api/v1/agent/commands/${id}/result${opts.query ?? ''}`, {
    method: 'POST',
    // What the agent sends: JSON without charset.
    headers: { 'Content-Type': 'application/json', ...(key ? { Authorization: `Bearer ${key}` } : {}) },
    body: opts.raw ?? JSON.stringify(body),
  });
}

describe.each(STORE_KINDS)('agent command channel: %s', (kind) => {
  let t: TestSac;
  const clock = new TestClock();
  let hostId: string;
  let monitor: string;

  beforeAll(async () => {
    t = await startTestSac(kind, { SAC_COMMAND_REDELIVER_SECONDS: '120', SAC_COMMAND_EXPIRE_MINUTES: '10' }, { clock });
    const eventId = await ingestEvent(t, { host: { hostname: 'WS-07', os_family: 'windows', ipv4: '10.0.0.7' }, source: { agent_instance_id: AGENT } });
    hostId = (await api(t, 'GET', `/api/v1/events/${eventId}`, { token: await adminToken(t) })).body.host_id;
    monitor = await userToken(t, 'monitor');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('queues qwinsta to the agent (202), hands it out once, takes one result, and parses it', async () => {
    const stream = await openStream(t, { token: monitor });
    const asked = await api(t, 'GET', `/api/v1/hosts/${hostId}/sessions`, { token: monitor });
    expect(asked.status).toBe(202);
    expect(asked.body).toMatchObject({ path: 'agent', host_id: hostId, command: { type: 'qwinsta', state: 'queued', params: {}, agent_instance_id: AGENT } });
    const id = asked.body.command.id as string;
    await stream.next((f) => f.event === 'command.updated' && f.data.id === id && f.data.state === 'queued');

    // The key never sent events for that installation: it does not speak for it.
    const foreign = await fetch(`${t.url}/api/v1/agent/commands?agent_instance_id=some-other-agent`, { headers: { Authorization: `Bearer ${t.apiKey}` } });
    expect(foreign.status).toBe(403);
    const polled = await agentPoll(t, AGENT);
    expect(polled).toEqual([{ id, type: 'qwinsta', params: {}, run_as: null }]);
    expect(await agentPoll(t, AGENT)).toEqual([]);
    await stream.next((f) => f.event === 'command.updated' && f.data.id === id && f.data.state === 'delivered');

    expect((await agentResult(t, id, { status: 'completed', stdout: QWINSTA, stderr: '' }, { query: '?agent_instance_id=someone-else' })).status).toBe(403);
    expect((await agentResult(t, id, { status: 'completed', stdout: 5, stderr: '' })).status).toBe(422);
    expect((await agentResult(t, id, null, { raw: '{"status":' })).status).toBe(422);
    expect((await agentResult(t, id, { status: 'completed', stdout: QWINSTA, stderr: '' }, { key: null })).status).toBe(401);
    const done = await agentResult(t, id, { status: 'completed', stdout: QWINSTA, stderr: '' });
    expect(done.status).toBe(200);
    expect((await agentResult(t, id, { status: 'completed', stdout: QWINSTA, stderr: '' })).status).toBe(409);
    expect((await agentResult(t, 'no-such-command', { status: 'failed', stdout: '', stderr: 'x' })).status).toBe(404);

    const finished = await stream.next((f) => f.event === 'command.updated' && f.data.id === id && f.data.state === 'succeeded');
    expect(finished.data.sessions).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: 2, username: 'alice', state: 'Active', session_name: 'rdp-tcp#3' })]),
    );
    stream.close();
    const read = await api(t, 'GET', `/api/v1/commands/${id}`, { token: monitor });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ state: 'succeeded', requested_by: expect.stringMatching(/^monitor-/), result: { status: 'succeeded', stdout: QWINSTA } });
  });

  it('queues logoff with an integer session id, redelivers it only after the timeout, records failure', async () => {
    const asked = await api(t, 'POST', `/api/v1/hosts/${hostId}/sessions/2/logoff`, { token: monitor });
    expect(asked.status).toBe(202);
    expect(asked.body.path).toBe('agent');
    const [cmd] = await agentPoll(t, AGENT);
    expect(cmd).toEqual({ id: asked.body.command.id, type: 'logoff', params: { session_id: 2 }, run_as: null });
    expect(Number.isInteger(cmd.params.session_id)).toBe(true);
    clock.advance(60_000);
    expect(await agentPoll(t, AGENT)).toEqual([]);
    clock.advance(61_000);
    expect((await agentPoll(t, AGENT)).map((c) => c.id)).toEqual([cmd.id]);
    // PowerShell may put a UTF-8 BOM before the JSON it sends.
    const failed = { status: 'failed', stdout: '', stderr: 'Session 2 not found' };
    expect((await agentResult(t, cmd.id, null, { raw: `\uFEFF${JSON.stringify(failed)}` })).status).toBe(200);
    const list = await api(t, 'GET', `/api/v1/commands?host_id=${hostId}&state=failed`, { token: monitor });
    expect(list.body.items).toMatchObject([{ id: cmd.id, deliveries: 2, result: { stderr: 'Session 2 not found' } }]);
    expect((await api(t, 'POST', `/api/v1/hosts/${hostId}/sessions/0/logoff`, { token: monitor })).status).toBe(400);
  });

  it('expires commands the agent never answers, and audits every step', async () => {
    const asked = await api(t, 'GET', `/api/v1/hosts/${hostId}/sessions`, { token: monitor });
    clock.advance(11 * 60_000);
    expect(await agentPoll(t, AGENT)).toEqual([]);
    expect((await api(t, 'GET', `/api/v1/commands/${asked.body.command.id}`, { token: monitor })).body.state).toBe('expired');
    const audit = await api(t, 'GET', '/api/v1/audit?action=command.&limit=100', { token: await adminToken(t) });
    const actions = new Set(audit.body.entries.map((e: { action: string }) => e.action));
    expect([...actions].sort()).toEqual(['command.delivered', 'command.expired', 'command.failed', 'command.queued', 'command.succeeded']);
    const listed = await api(t, 'GET', '/api/v1/audit?action=actions.sessions_listed&limit=10', { token: await adminToken(t) });
    expect(listed.body.entries[0]).toMatchObject({ outcome: 'ok', target: `host:${hostId}`, details: { path: 'agent' } });
  });
});
