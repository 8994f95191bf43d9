import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api, userToken } from '../helpers/auth.js';
import { postEvent, startTestSac, type TestSac } from '../helpers/daemon.js';
import { buildEvent } from '../helpers/events.js';
import { STORE_KINDS } from '../helpers/stores.js';

const AGENT_A = 'a1a1a1a1-0000-4000-8000-00000000000a';
const AGENT_V = 'b2b2b2b2-0000-4000-8000-00000000000b';

/** The calls of an agent that polls (commands, update and configuration) and answers commands. */
function agentCalls(t: TestSac) {
  const get = (path: string, key: string) => fetch(`${t.url}${path}`, { headers: { Authorization: `Bearer ${key}` } });
  return {
    commands: (key: string, instance: string) => get(`/api/v1/agent/commands?agent_instance_id=${encodeURIComponent(instance)}`, key),
    poll: (key: string, instance: string) => get(`/api/v1/agent/poll?agent_instance_id=${encodeURIComponent(instance)}`, key),
    result: (key: string, id: string, query = '') =>
      fetch(`${t.url}/api/v1/agent/commands/${id}/result${query}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
        body: JSON.stringify({ status: 'completed', stdout: ' SESSIONNAME USERNAME ID STATE\r\n', stderr: '' }),
      }),
  };
}

async function refusal(res: Response): Promise<{ status: number; code: string }> {
  return { status: res.status, code: ((await res.json()) as { error: { code: string } }).error.code };
}

describe.each(STORE_KINDS)('an agent key speaks only for its own host: %s', (kind) => {
  let t: TestSac;
  let admin: string;
  let monitor: string;
  const keys: Record<string, { key: string; id: string }> = {};
  let victimHost: string;

  const createKey = async (label: string, binding: Record<string, string> = {}) => {
    const created = await api(t, 'POST', '/api/v1/api-keys', { token: admin, body: { label, ...binding } });
    expect(created.status).toBe(201);
    return { key: created.body.key as string, id: created.body.api_key.id as string };
  };
  const send = async (key: string, hostname: string, instance: string) => {
    const res = await postEvent(t.url, key, buildEvent({ host: { hostname, os_family: 'windows' }, source: { agent_instance_id: instance } }));
    expect(res.status).toBe(201);
  };

  beforeAll(async () => {
    t = await startTestSac(kind);
    admin = await adminToken(t);
    monitor = await userToken(t, 'monitor');
    keys.attacker = await createKey('ws-attacker', { hostname: 'WS-ATTACKER' });
    keys.victim = await createKey('ws-victim', { hostname: 'WS-VICTIM' });
    await send(keys.attacker.key, 'WS-ATTACKER', AGENT_A);
    await send(keys.victim.key, 'WS-VICTIM', AGENT_V);
    victimHost = (await api(t, 'GET', '/api/v1/hosts', { token: admin })).body.items.find((h: { hostname: string }) => h.hostname === 'WS-VICTIM').id;
  });
  afterAll(async () => {
    await t?.close();
  });

  it("gives a bound key no other agent's commands or configuration, and takes no result for them from it", async () => {
    const agent = agentCalls(t);
    expect((await api(t, 'PUT', `/api/v1/hosts/${victimHost}/agent-config`, { token: admin, body: { HeartbeatMinutes: 5 } })).status).toBe(200);
    const asked = await api(t, 'GET', `/api/v1/hosts/${victimHost}/sessions`, { token: monitor });
    expect(asked.status).toBe(202);
    const commandId = asked.body.command.id as string;

    expect(await refusal(await agent.commands(keys.attacker.key, AGENT_V))).toEqual({ status: 403, code: 'apikey/host_mismatch' });
    expect(await refusal(await agent.poll(keys.attacker.key, AGENT_V))).toEqual({ status: 403, code: 'apikey/host_mismatch' });
    // Its own installation is served.
    expect((await agent.poll(keys.attacker.key, AGENT_A)).status).toBe(200);
    expect(await (await agent.commands(keys.attacker.key, AGENT_A)).json()).toEqual({ commands: [] });

    const victimPoll = await agent.poll(keys.victim.key, AGENT_V);
    expect(await victimPoll.json()).toMatchObject({ config: { HeartbeatMinutes: 5 } });
    const victimCommands = (await (await agent.commands(keys.victim.key, AGENT_V)).json()) as { commands: { id: string }[] };
    expect(victimCommands.commands.map((c) => c.id)).toEqual([commandId]);

    // A result for the victim's command: refused naming the victim's installation, unknown without it.
    expect(await refusal(await agent.result(keys.attacker.key, commandId, `?agent_instance_id=${AGENT_V}`))).toEqual({ status: 403, code: 'apikey/host_mismatch' });
    expect(await refusal(await agent.result(keys.attacker.key, commandId))).toEqual({ status: 404, code: 'command/not_found' });
    expect((await api(t, 'GET', `/api/v1/commands/${commandId}`, { token: monitor })).body.state).toBe('delivered');

    expect((await agent.result(keys.victim.key, commandId)).status).toBe(200);
    const audit = await api(t, 'GET', '/api/v1/audit?action=command.succeeded&limit=10', { token: admin });
    const entry = audit.body.entries.find((e: { details: { command_id: string } }) => e.details.command_id === commandId);
    expect(entry.details.api_key).toEqual({ id: keys.victim.id, prefix: keys.victim.key.slice(0, 12), label: 'ws-victim' });
    expect(JSON.stringify(audit.body)).not.toContain(keys.victim.key);
  });

  it("grants a hostname-bound key nothing through its own host's events naming another host's installation", async () => {
    const agent = agentCalls(t);
    const thief = await createKey('ws-thief', { hostname: 'WS-THIEF' });
    // Its own host name, so the event is accepted; the installation id is the victim's (shown on the host page).
    await send(thief.key, 'WS-THIEF', AGENT_V);
    const asked = await api(t, 'GET', `/api/v1/hosts/${victimHost}/sessions`, { token: monitor });
    expect(asked.status).toBe(202);
    expect(await refusal(await agent.commands(thief.key, AGENT_V))).toEqual({ status: 403, code: 'apikey/host_mismatch' });
    expect(await refusal(await agent.poll(thief.key, AGENT_V))).toEqual({ status: 403, code: 'apikey/host_mismatch' });
    expect(await refusal(await agent.result(thief.key, asked.body.command.id, `?agent_instance_id=${AGENT_V}`))).toEqual({ status: 403, code: 'apikey/host_mismatch' });
  });

  it("gives a key bound to one installation no other host's commands by naming that host", async () => {
    const agent = agentCalls(t);
    const instance = randomUUID();
    const bound = await createKey('installation only', { agent_instance_id: instance });
    // WS-VICTIM runs another installation: the event is refused like one naming another host.
    const named = await postEvent(t.url, bound.key, buildEvent({ host: { hostname: 'WS-VICTIM', os_family: 'windows' }, source: { agent_instance_id: instance } }));
    expect(named.body.error?.code).toBe('apikey/host_mismatch');
    const asked = await api(t, 'GET', `/api/v1/hosts/${victimHost}/sessions`, { token: monitor });
    expect(asked.status).toBe(202);
    const taken = (await (await agent.commands(bound.key, instance)).json()) as { commands: { id: string }[] };
    expect(taken.commands.map((c) => c.id)).not.toContain(asked.body.command.id);
  });

  it("gives a flagging key no other host's commands through a flagged event naming its own installation", async () => {
    const agent = agentCalls(t);
    const flagging = await createKey('flagging thief', { hostname: 'WS-FLAGGER', on_mismatch: 'flag' });
    const instance = randomUUID();
    await send(flagging.key, 'WS-FLAGGER', instance);
    // Stored and flagged: the victim's host must keep its own installation.
    await send(flagging.key, 'WS-VICTIM', instance);
    const asked = await api(t, 'GET', `/api/v1/hosts/${victimHost}/sessions`, { token: monitor });
    expect(asked.status).toBe(202);
    expect(asked.body.command.agent_instance_id).toBe(AGENT_V);
    const taken = (await (await agent.commands(flagging.key, instance)).json()) as { commands: { id: string }[] };
    expect(taken.commands.map((c) => c.id)).not.toContain(asked.body.command.id);
  });

  it('lets an unbound key poll only for installations it has itself sent events for, from the first 201 on', async () => {
    const agent = agentCalls(t);
    const branch = await createKey('branch office');
    const instance = randomUUID();
    expect(await refusal(await agent.poll(branch.key, instance))).toEqual({ status: 403, code: 'apikey/host_mismatch' });
    expect(await refusal(await agent.commands(branch.key, instance))).toEqual({ status: 403, code: 'apikey/host_mismatch' });
    // The bootstrap key is unbound too, and never sent for the victim.
    expect(await refusal(await agent.poll(t.apiKey, AGENT_V))).toEqual({ status: 403, code: 'apikey/host_mismatch' });

    await send(branch.key, 'BRANCH-01', instance);
    expect((await agent.poll(branch.key, instance)).status).toBe(200);
    expect((await agent.commands(branch.key, instance)).status).toBe(200);
  });

  it('serves a key bound to an installation for that installation alone, and ends a revoked key at once', async () => {
    const agent = agentCalls(t);
    const instance = randomUUID();
    const bound = await createKey('one installation', { agent_instance_id: instance });
    expect((await agent.poll(bound.key, instance)).status).toBe(200);
    expect(await refusal(await agent.poll(bound.key, AGENT_A))).toEqual({ status: 403, code: 'apikey/host_mismatch' });

    expect((await agent.poll(keys.attacker.key, AGENT_A)).status).toBe(200);
    expect((await api(t, 'DELETE', `/api/v1/api-keys/${keys.attacker.id}`, { token: admin })).status).toBe(204);
    expect((await agent.poll(keys.attacker.key, AGENT_A)).status).toBe(401);
    expect((await agent.commands(keys.attacker.key, AGENT_A)).status).toBe(401);
  });

  it('grants a hostname-bound key nothing through an event it sent, flagged, for another host', async () => {
    const agent = agentCalls(t);
    const flagged = await createKey('flag mode', { hostname: 'WS-FLAG', on_mismatch: 'flag' });
    const instance = randomUUID();
    await send(flagged.key, 'WS-OTHER', instance);
    expect(await refusal(await agent.poll(flagged.key, instance))).toEqual({ status: 403, code: 'apikey/host_mismatch' });
  });
});
