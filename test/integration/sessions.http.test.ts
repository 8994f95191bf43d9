import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createUser, login } from '../helpers/auth.js';
import { TestClock } from '../helpers/clock.js';
import { startTestSac, type TestSac } from '../helpers/daemon.js';
import { openStream } from '../helpers/stream.js';
import { STORE_KINDS } from '../helpers/stores.js';
import { trpc } from '../peers/trpc.js';

const MINUTE = 60_000;

async function signIn(t: TestSac, username: string, password: string): Promise<{ token: string; expiresMs: number }> {
  const res = await login(t, username, password);
  expect(res.status).toBe(200);
  return { token: res.body.token, expiresMs: Date.parse(res.body.expires_at) };
}

describe.each(STORE_KINDS)('console sessions on %s', (kind) => {
  let sac: TestSac;
  const clock = new TestClock();
  beforeAll(async () => {
    sac = await startTestSac(kind, { SAC_SESSION_TTL_MINUTES: '30', SAC_SESSION_ABSOLUTE_HOURS: '1' }, { clock });
  });
  afterAll(async () => {
    await sac?.close();
  });

  it('signs out on the server: the token, its renewals and its streams stop working; other sessions go on', async () => {
    const { user, password } = await createUser(sac, 'monitor');
    const a = await signIn(sac, user.username, password);
    const b = await signIn(sac, user.username, password);
    const renewed = await api(sac, 'POST', '/api/v1/auth/renew', { token: a.token });
    expect(renewed.status).toBe(200);
    const stream = await openStream(sac, { token: a.token });
    expect(stream.status).toBe(200);
    const ticket = await api(sac, 'POST', '/api/v1/stream/ticket', { token: a.token });
    const ticketStream = await openStream(sac, { ticket: ticket.body.ticket });
    expect(ticketStream.status).toBe(200);

    expect((await api(sac, 'POST', '/api/v1/auth/logout', { token: a.token })).status).toBe(204);
    await Promise.all([stream.ended, ticketStream.ended]);
    for (const token of [a.token, renewed.body.token]) {
      expect((await api(sac, 'GET', '/api/v1/auth/me', { token })).status).toBe(401);
      expect((await api(sac, 'POST', '/api/v1/auth/renew', { token })).status).toBe(401);
      expect((await openStream(sac, { token })).status).toBe(401);
    }
    expect((await api(sac, 'GET', '/api/v1/auth/me', { token: b.token })).status).toBe(200);

    // tRPC sign-out does the same.
    expect((await trpc(sac, b.token, 'mutation', 'auth.logout')).status).toBe(200);
    expect((await trpc(sac, b.token, 'query', 'auth.me')).status).toBe(401);
    const audit = await api(sac, 'GET', `/api/v1/audit?action=auth.logout&actor=${user.username}`, { token: (await signIn(sac, sac.adminUsername, sac.adminPassword)).token });
    expect(audit.body.entries).toHaveLength(2);
  });

  it('ends a session at its absolute lifetime however often it is renewed', async () => {
    const { user, password } = await createUser(sac, 'monitor');
    let { token, expiresMs } = await signIn(sac, user.username, password);
    // Taken after the sign-in, so the session began at or before it.
    const start = clock.now();
    expect(expiresMs).toBeLessThanOrEqual(start + 30 * MINUTE + 1000);
    for (let i = 0; i < 3; i++) {
      clock.advance(15 * MINUTE);
      const renewed = await api(sac, 'POST', '/api/v1/auth/renew', { token });
      expect(renewed.status).toBe(200);
      token = renewed.body.token;
      expiresMs = Date.parse(renewed.body.expires_at);
      expect(expiresMs).toBeLessThanOrEqual(start + 60 * MINUTE + 1000);
    }
    // 60 minutes in: the last renewal's token ends with the session, and nothing renews it.
    clock.advance(17 * MINUTE);
    expect((await api(sac, 'GET', '/api/v1/auth/me', { token })).status).toBe(401);
    expect((await api(sac, 'POST', '/api/v1/auth/renew', { token })).status).toBe(401);
    expect((await login(sac, user.username, password)).status).toBe(200);
  });
});

describe('live streams end when their token expires', () => {
  it('closes a stream opened with a token, or with a ticket it asked for, at that token expiry', async () => {
    // A session of 3.6 s: its tokens expire then, on the real clock.
    const sac = await startTestSac('sqlite', { SAC_SESSION_ABSOLUTE_HOURS: '0.001' });
    try {
      const { user, password } = await createUser(sac, 'monitor');
      const { token, expiresMs } = await signIn(sac, user.username, password);
      expect(expiresMs - Date.now()).toBeLessThan(4000);
      const byToken = await openStream(sac, { token });
      const ticket = await api(sac, 'POST', '/api/v1/stream/ticket', { token });
      const byTicket = await openStream(sac, { ticket: ticket.body.ticket });
      expect([byToken.status, byTicket.status]).toEqual([200, 200]);
      await Promise.all([byToken.ended, byTicket.ended]);
      // Ended by the expiry, not by a 15 s heartbeat check.
      expect(Date.now()).toBeGreaterThanOrEqual(expiresMs - 1000);
      expect(Date.now()).toBeLessThan(expiresMs + 3000);
    } finally {
      await sac.close();
    }
  });
});
