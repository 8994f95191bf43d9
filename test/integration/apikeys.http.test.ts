import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api, userToken } from '../helpers/auth.js';
import { postEvent, startTestSac, type TestSac } from '../helpers/daemon.js';
import { buildEvent } from '../helpers/events.js';
import { STORE_KINDS } from '../helpers/stores.js';
import { waitFor } from '../helpers/clock.js';

describe.each(STORE_KINDS)('agent API keys over REST on %s', (kind) => {
  let sac: TestSac;
  beforeAll(async () => {
    sac = await startTestSac(kind);
  });
  afterAll(async () => {
    await sac?.close();
  });

  it('creates a key shown once, lists it without the secret, and revoking it stops ingest at once', async () => {
    const token = await adminToken(sac);
    const created = await api(sac, 'POST', '/api/v1/api-keys', { token, body: { label: 'branch office' } });
    expect(created.status).toBe(201);
    const key = created.body.key as string;
    expect(key).toMatch(/^sac_[A-Za-z0-9]{40}$/);
    expect(created.body.api_key).toMatchObject({ label: 'branch office', prefix: key.slice(0, 12), revoked_at: null });

    expect((await postEvent(sac.url, key, buildEvent())).status).toBe(201);
    const list = await api(sac, 'GET', '/api/v1/api-keys', { token });
    expect(list.status).toBe(200);
    expect(JSON.stringify(list.body)).not.toContain(key);
    const labels = list.body.api_keys.map((k: { label: string }) => k.label);
    expect(labels).toEqual(expect.arrayContaining(['bootstrap', 'branch office']));

    expect((await api(sac, 'DELETE', `/api/v1/api-keys/${created.body.api_key.id}`, { token })).status).toBe(204);
    expect((await postEvent(sac.url, key, buildEvent())).status).toBe(401);
    expect((await api(sac, 'DELETE', `/api/v1/api-keys/${created.body.api_key.id}`, { token })).status).toBe(404);
    const audit = await sac.sac.store.audit.list({ action: 'apikey.', limit: 10 });
    expect(audit.map((e) => e.action)).toEqual(['apikey.revoked', 'apikey.created']);
  });

  it('writes the use of several keys together, seconds after the first, and shows it in the list', async () => {
    const token = await adminToken(sac);
    const keys: { key: string; id: string }[] = [];
    for (const label of ['use one', 'use two', 'use three']) {
      const created = await api(sac, 'POST', '/api/v1/api-keys', { token, body: { label } });
      keys.push({ key: created.body.key, id: created.body.api_key.id });
    }
    for (const { key } of keys) expect((await postEvent(sac.url, key, buildEvent())).status).toBe(201);
    const lastUsed = async () => {
      const list = await api(sac, 'GET', '/api/v1/api-keys', { token });
      return keys.map(({ id }) => list.body.api_keys.find((k: { id: string }) => k.id === id).last_used_at as string | null);
    };
    // Not written one request at a time: nothing yet, right after the requests.
    expect(await lastUsed()).toEqual([null, null, null]);
    const written = await waitFor('the keys’ use written', async () => {
      const used = await lastUsed();
      return used.every((u) => u !== null) ? used : null;
    });
    for (const at of written) expect(Date.parse(at!)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('refuses an event for another host from a key bound to a host, so it cannot heartbeat for that host', async () => {
    const token = await adminToken(sac);
    const created = await api(sac, 'POST', '/api/v1/api-keys', { token, body: { label: 'rds01 only', hostname: 'RDS01' } });
    expect(created.status).toBe(201);
    expect(created.body.api_key).toMatchObject({ hostname: 'rds01', agent_instance_id: null, on_mismatch: 'refuse' });
    const key = created.body.key as string;

    expect((await postEvent(sac.url, key, buildEvent({ host: { hostname: 'rds01' } }))).status).toBe(201);
    const victim = 'BOUND-VICTIM-01';
    const heartbeat = buildEvent({ host: { hostname: victim }, category: 'agent', type: 'agent.heartbeat', severity: 'info' });
    const refused = await postEvent(sac.url, key, heartbeat);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('apikey/host_mismatch');
    expect(await sac.sac.store.events.byId(heartbeat.event_id)).toBeNull();
    expect((await sac.sac.store.hosts.list()).map((h) => h.hostname)).not.toContain(victim);
    // the same event through an unbound key is stored: the refusal was the binding's
    expect((await postEvent(sac.url, sac.apiKey, heartbeat)).status).toBe(201);

    const audit = await sac.sac.store.audit.list({ action: 'apikey.host_mismatch', limit: 10 });
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ outcome: 'denied', target: `apikey:${created.body.api_key.id}` });
    expect(audit[0].details).toMatchObject({ field: 'hostname', claimed: victim, action: 'refuse' });
  });

  it('binds a key to an agent installation, and a flagging key accepts and audits a mismatch', async () => {
    const token = await adminToken(sac);
    const instance = 'inst-7f3a';
    const bound = await api(sac, 'POST', '/api/v1/api-keys', { token, body: { label: 'one agent', agent_instance_id: instance } });
    const boundKey = bound.body.key as string;
    // Its own host (one that runs no other installation).
    expect((await postEvent(sac.url, boundKey, buildEvent({ host: { hostname: 'INST-HOST' }, source: { agent_instance_id: instance } }))).status).toBe(201);
    expect((await postEvent(sac.url, boundKey, buildEvent({ source: { agent_instance_id: 'other' } }))).status).toBe(403);
    const noInstance = buildEvent();
    delete (noInstance.source as { agent_instance_id?: string }).agent_instance_id;
    expect((await postEvent(sac.url, boundKey, noInstance)).status).toBe(403);

    const flag = await api(sac, 'POST', '/api/v1/api-keys', { token, body: { label: 'flagged', hostname: 'web-01', on_mismatch: 'flag' } });
    expect(flag.body.api_key.on_mismatch).toBe('flag');
    const other = buildEvent({ host: { hostname: 'FLAGGED-OTHER' } });
    expect((await postEvent(sac.url, flag.body.key, other)).status).toBe(201);
    expect((await postEvent(sac.url, flag.body.key, buildEvent({ host: { hostname: 'FLAGGED-OTHER' } }))).status).toBe(201);
    const audit = (await sac.sac.store.audit.list({ action: 'apikey.host_mismatch', limit: 20 })).filter((e) => e.target === `apikey:${flag.body.api_key.id}`);
    // audited once per key, claimed host and outcome in a period, not once per event
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ outcome: 'ok', details: { claimed: 'FLAGGED-OTHER', action: 'flag' } });

    expect((await api(sac, 'POST', '/api/v1/api-keys', { token, body: { label: 'x', on_mismatch: 'ignore' } })).status).toBe(400);
  });

  it('rejects a blank label with 400 and a monitor with 403', async () => {
    expect((await api(sac, 'POST', '/api/v1/api-keys', { token: await adminToken(sac), body: { label: ' ' } })).status).toBe(400);
    expect((await api(sac, 'GET', '/api/v1/api-keys', { token: await userToken(sac, 'monitor') })).status).toBe(403);
  });
});
