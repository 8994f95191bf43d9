import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api, userToken } from '../helpers/auth.js';
import { postEvent, startTestSac, type TestSac } from '../helpers/daemon.js';
import { buildEvent } from '../helpers/events.js';
import { STORE_KINDS } from '../helpers/stores.js';

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

  it('rejects a blank label with 400 and a monitor with 403', async () => {
    expect((await api(sac, 'POST', '/api/v1/api-keys', { token: await adminToken(sac), body: { label: ' ' } })).status).toBe(400);
    expect((await api(sac, 'GET', '/api/v1/api-keys', { token: await userToken(sac, 'monitor') })).status).toBe(403);
  });
});
