import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api, createUser, login } from '../helpers/auth.js';
import { startTestSac, type TestSac } from '../helpers/daemon.js';
import { STORE_KINDS } from '../helpers/stores.js';
import { startPushPeer, type PushPeer } from '../peers/push.peer.js';
import { trpc } from '../peers/trpc.js';
import { waitFor } from '../helpers/clock.js';
import { closeServer, listen } from '../peers/util.js';

interface Delivery {
  target: string;
  ok: boolean;
  error: string | null;
}

describe.each(STORE_KINDS)('push subscriptions hardening on %s', (kind) => {
  let sac: TestSac;
  let admin: string;
  let peer: PushPeer;
  let redirector: Server;
  let redirectOrigin: string;
  beforeAll(async () => {
    peer = await startPushPeer();
    // Answers every push with 307 to the real push peer: followed, the message would arrive there.
    redirector = createServer((_req, res) => res.writeHead(307, { Location: peer.subscription.endpoint }).end());
    redirectOrigin = await listen(redirector);
    sac = await startTestSac(kind, {
      SAC_PUSH_ALLOW_LOOPBACK: 'true',
      // `localhost` listed as if it were a push service: it must still be refused once resolved.
      SAC_PUSH_HOSTS: 'push.example,localhost',
      SAC_PUSH_MAX_PER_USER: '3',
    });
    admin = await adminToken(sac);
  });
  afterAll(async () => {
    await sac?.close();
    await peer?.close();
    if (redirector) await closeServer(redirector);
  });

  const subscribe = (token: string, endpoint: string, keys = peer.subscription.keys) =>
    api(sac, 'POST', '/api/v1/push/subscriptions', { token, body: { endpoint, keys } });
  const testSend = async (): Promise<Delivery[]> => {
    const res = await trpc(sac, admin, 'mutation', 'notifications.test', { channel: 'push' });
    expect(res.status).toBe(200);
    return res.data.deliveries as Delivery[];
  };
  const removeAll = async () => {
    const list = await api(sac, 'GET', '/api/v1/push/subscriptions', { token: admin });
    for (const s of list.body.subscriptions as { id: string }[]) await api(sac, 'DELETE', `/api/v1/push/subscriptions/${s.id}`, { token: admin });
  };

  it('accepts https endpoints on the configured push hosts only', async () => {
    const { user, password } = await createUser(sac, 'monitor');
    const monitor = (await login(sac, user.username, password)).body.token;
    for (const endpoint of ['https://evil.example/x', 'https://push.example:8443/x', 'https://10.0.0.5/x', 'https://user:pw@push.example/x', 'https://push.example.evil.test/x']) {
      const res = await subscribe(monitor, endpoint);
      expect(res.status, endpoint).toBe(400);
      expect(res.body.error.code, endpoint).toBe('notify/push_endpoint_refused');
    }
    expect((await subscribe(monitor, 'https://push.example/fine')).status).toBe(201);
    await removeAll();
  });

  it('keeps at most 3 subscriptions per user (refreshing one of them is fine)', async () => {
    const { user, password } = await createUser(sac, 'monitor');
    const monitor = (await login(sac, user.username, password)).body.token;
    for (let i = 0; i < 3; i++) expect((await subscribe(monitor, `https://push.example/${user.id}/${i}`)).status).toBe(201);
    const fourth = await subscribe(monitor, `https://push.example/${user.id}/3`);
    expect(fourth.status).toBe(409);
    expect(fourth.body.error.code).toBe('notify/too_many_subscriptions');
    expect((await subscribe(monitor, `https://push.example/${user.id}/0`)).status).toBe(201);
    await removeAll();
  });

  it("never moves another user's endpoint to the caller", async () => {
    const mine = await subscribe(admin, peer.subscription.endpoint);
    expect(mine.status).toBe(201);
    const { user, password } = await createUser(sac, 'monitor');
    const monitor = (await login(sac, user.username, password)).body.token;
    const taken = await subscribe(monitor, peer.subscription.endpoint, { ...peer.subscription.keys, auth: 'AAAAAAAAAAAAAAAAAAAAAA' });
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe('notify/push_endpoint_taken');
    const list = await api(sac, 'GET', '/api/v1/push/subscriptions', { token: admin });
    expect(list.body.subscriptions.map((s: { user_id: string }) => s.user_id)).toEqual([mine.body.user_id]);
    // The owner's keys were not replaced: the message still decrypts at the peer.
    const before = peer.deliveries.length;
    expect((await testSend()).every((d) => d.ok)).toBe(true);
    expect(peer.deliveries.length).toBe(before + 1);
    await removeAll();
  });

  it("removes a deactivated or deleted user's subscriptions, and dispatch skips those of inactive users", async () => {
    const a = await createUser(sac, 'monitor');
    const b = await createUser(sac, 'monitor');
    const tokenA = (await login(sac, a.user.username, a.password)).body.token;
    const tokenB = (await login(sac, b.user.username, b.password)).body.token;
    expect((await subscribe(tokenA, `https://push.example/${a.user.id}`)).status).toBe(201);
    expect((await subscribe(tokenB, `https://push.example/${b.user.id}`)).status).toBe(201);
    const owners = async () => (await api(sac, 'GET', '/api/v1/push/subscriptions', { token: admin })).body.subscriptions.map((s: { user_id: string }) => s.user_id);
    expect((await api(sac, 'PATCH', `/api/v1/users/${a.user.id}`, { token: admin, body: { active: false } })).status).toBe(200);
    expect((await api(sac, 'DELETE', `/api/v1/users/${b.user.id}`, { token: admin })).status).toBe(204);
    await waitFor('the subscriptions of the removed users to go', async () => (await owners()).length === 0);

    // A subscription whose user went inactive behind the service's back (another daemon, a race).
    const c = await createUser(sac, 'monitor');
    const tokenC = (await login(sac, c.user.username, c.password)).body.token;
    expect((await subscribe(tokenC, peer.subscription.endpoint)).status).toBe(201);
    await sac.sac.store.users.update(c.user.id, { active: false, updated_ms: Date.now() });
    const before = peer.deliveries.length;
    const deliveries = await testSend();
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ ok: false });
    expect(deliveries[0].error).toMatch(/inactive/);
    expect(peer.deliveries.length).toBe(before);
    expect(await owners()).toEqual([]);
  });

  it('refuses a push host that resolves to a private address, and does not follow redirects', async () => {
    expect((await subscribe(admin, 'https://localhost/push/x')).status).toBe(201);
    const resolved = await testSend();
    expect(resolved[0].ok).toBe(false);
    expect(resolved[0].error).toMatch(/private address/);
    await removeAll();

    expect((await subscribe(admin, `${redirectOrigin}/push/sub-1`)).status).toBe(201);
    const before = peer.deliveries.length;
    const redirected = await testSend();
    expect(redirected[0].ok).toBe(false);
    expect(redirected[0].error).toMatch(/307.*redirects are not followed/);
    expect(peer.deliveries.length).toBe(before);
    await removeAll();
  });
});
