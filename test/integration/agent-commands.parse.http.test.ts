import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api, userToken } from '../helpers/auth.js';
import { ingestEvent, startTestSac, type TestSac } from '../helpers/daemon.js';
import { STORE_KINDS } from '../helpers/stores.js';

const AGENT = '0f7c4d2e-5a61-4b8e-9c3d-2e1f0a9b8c7d';
const HEADER = ' SESSIONNAME       USERNAME                 ID  STATE   TYPE        DEVICE';

/** qwinsta output of `size` bytes whose header columns are padded apart, so its one row is as wide. */
function paddedQwinsta(size: number): string {
  const pad = ' '.repeat(size / 2 - 40);
  return ` SESSIONNAME USERNAME ID STATE${pad}TYPE DEVICE\r\n rdp-tcp#1 mallory${pad}7 Active rdpwd\r\n`;
}

async function agentRuns(t: TestSac, stdout: string): Promise<string> {
  const headers = { Authorization: `Bearer ${t.apiKey}` };
  const polled = (await (await fetch(`${t.url}/api/v1/agent/commands?agent_instance_id=${AGENT}`, { headers })).json()) as { commands: { id: string }[] };
  const [command] = polled.commands;
  const posted = await fetch(`${t.url}/api/v1/agent/commands/${command!.id}/result?agent_instance_id=${AGENT}`, {
    method: 'POST',
    headers: { ...headers, 'Content-Type': 'application/json' },
    body: JSON.stringify({ status: 'completed', stdout, stderr: '' }),
  });
  expect(posted.status).toBe(200);
  return command!.id;
}

describe.each(STORE_KINDS)('qwinsta results parsed once, in linear time: %s', (kind) => {
  let t: TestSac;
  let hostId: string;
  let monitor: string;

  beforeAll(async () => {
    t = await startTestSac(kind);
    const eventId = await ingestEvent(t, { host: { hostname: 'WS-31', os_family: 'windows', ipv4: '10.0.0.31' }, source: { agent_instance_id: AGENT } });
    hostId = (await api(t, 'GET', `/api/v1/events/${eventId}`, { token: await adminToken(t) })).body.host_id;
    monitor = await userToken(t, 'monitor');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('lists a 128 KB padded qwinsta result in under a second', async () => {
    expect((await api(t, 'GET', `/api/v1/hosts/${hostId}/sessions`, { token: monitor })).status).toBe(202);
    const stdout = paddedQwinsta(128 * 1024);
    const id = await agentRuns(t, stdout);
    const started = performance.now();
    const listed = await api(t, 'GET', `/api/v1/commands?host_id=${hostId}`, { token: monitor });
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(listed.status).toBe(200);
    const command = listed.body.items.find((c: { id: string }) => c.id === id);
    expect(command).toMatchObject({ state: 'succeeded', sessions: [], result: { status: 'succeeded', stdout, stderr: '' } });
  });

  it('serves the sessions parsed when the result arrived, and the raw output as the agent sent it', async () => {
    expect((await api(t, 'GET', `/api/v1/hosts/${hostId}/sessions`, { token: monitor })).status).toBe(202);
    const stdout = `${HEADER}\r\n>rdp-tcp#3         alice                     2  Active  rdpwd\r\n`;
    const id = await agentRuns(t, stdout);
    const got = await api(t, 'GET', `/api/v1/commands/${id}`, { token: monitor });
    expect(got.body).toMatchObject({
      sessions: [{ session_name: 'rdp-tcp#3', username: 'alice', id: 2, state: 'Active', type: 'rdpwd', device: '' }],
      result: { status: 'succeeded', stdout, stderr: '' },
    });
    expect(Object.keys(got.body.result).sort()).toEqual(['status', 'stderr', 'stdout']);
  });
});
