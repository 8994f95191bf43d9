import * as OTPAuth from 'otpauth';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { Store } from '../../daemon/src/store/index.js';
import { api, createUser, login } from '../helpers/auth.js';
import { TestClock } from '../helpers/clock.js';
import { startTestSac, type TestSac } from '../helpers/daemon.js';
import { STORE_KINDS } from '../helpers/stores.js';

/** Store latency (ms) on the throttle and TOTP repositories while `slow.on`: parallel attempts overlap in the store. */
const slow = vi.hoisted(() => ({ on: false, ms: 50 }));

vi.mock('../../daemon/src/store/index.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../daemon/src/store/index.js')>();
  const delayed = <T extends object>(repo: T): T =>
    new Proxy(repo, {
      get(target, prop, receiver) {
        const value: unknown = Reflect.get(target, prop, receiver);
        if (typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          if (slow.on) await new Promise((resolve) => setTimeout(resolve, slow.ms));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  return {
    ...original,
    openStore: async (...args: Parameters<typeof original.openStore>): Promise<Store> => {
      const store = await original.openStore(...args);
      return new Proxy(store, {
        get(target, prop, receiver) {
          const value: unknown = Reflect.get(target, prop, receiver);
          return prop === 'loginThrottle' || prop === 'totp' ? delayed(value as object) : value;
        },
      });
    },
  };
});

const count = (statuses: number[]) => statuses.reduce<Record<number, number>>((acc, s) => ({ ...acc, [s]: (acc[s] ?? 0) + 1 }), {});

/** A signed-in user who has just turned TOTP on (the clock moved to the next step). */
async function enrolledSession(t: TestSac, clock: TestClock) {
  const { user, password } = await createUser(t, 'monitor');
  const session = (await login(t, user.username, password)).body.token as string;
  const enroll = await api(t, 'POST', '/api/v1/auth/totp/enroll', { token: session });
  const totp = new OTPAuth.TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: OTPAuth.Secret.fromBase32(enroll.body.secret) });
  expect((await api(t, 'POST', '/api/v1/auth/totp/confirm', { token: session, body: { code: totp.generate({ timestamp: clock.now() }) } })).status).toBe(200);
  clock.advance(30_000);
  return { user, password, session, totp };
}

/** A user with TOTP on and a ticket of the password step: what 40 parallel code guesses start from. */
async function ticketWithTotp(t: TestSac, clock: TestClock): Promise<{ ticket: string; totp: OTPAuth.TOTP }> {
  const { user, password, totp } = await enrolledSession(t, clock);
  const challenge = await login(t, user.username, password);
  expect(challenge.body.second_factor).toBe('totp');
  return { ticket: challenge.body.ticket as string, totp };
}

/** 40 parallel wrong codes with store latency; the status of each answer. */
async function parallelWrongCodes(t: TestSac, ticket: string, totp: OTPAuth.TOTP, clock: TestClock): Promise<number[]> {
  const right = totp.generate({ timestamp: clock.now() });
  const wrong = right === '000000' ? '000001' : '000000';
  slow.on = true;
  try {
    const answers = await Promise.all(Array.from({ length: 40 }, () => api(t, 'POST', '/api/v1/auth/login/totp', { body: { ticket, code: wrong } })));
    for (const a of answers) if (a.status !== 401) expect(a.body.error.code).toBe('auth/too_many_attempts');
    return answers.map((a) => a.status);
  } finally {
    slow.on = false;
  }
}

describe.each(STORE_KINDS)('TOTP sign-in step under concurrency: %s', (kind) => {
  const daemons: TestSac[] = [];
  afterAll(async () => {
    for (const d of daemons) await d.close();
  });

  it('evaluates at most 3 of 40 parallel wrong codes for one user (401); the rest get 429, and the user stays locked', async () => {
    const clock = new TestClock();
    // The address bound is lifted so the per-user reservation is what is measured.
    const t = await startTestSac(kind, { SAC_LOGIN_ADDRESS_MAX_FAILURES: '100000' }, { clock });
    daemons.push(t);
    const { ticket, totp } = await ticketWithTotp(t, clock);
    expect(count(await parallelWrongCodes(t, ticket, totp, clock))).toEqual({ 401: 3, 429: 37 });
    clock.advance(30_000);
    const right = await api(t, 'POST', '/api/v1/auth/login/totp', { body: { ticket, code: totp.generate({ timestamp: clock.now() }) } });
    expect(right.status, JSON.stringify(right.body)).toBe(429);
  }, 60_000);

  it('evaluates at most 3 of 40 parallel wrong codes that would turn the second factor off from a (stolen) session', async () => {
    const clock = new TestClock();
    const t = await startTestSac(kind, { SAC_LOGIN_ADDRESS_MAX_FAILURES: '100000' }, { clock });
    daemons.push(t);
    const { session, totp } = await enrolledSession(t, clock);
    const right = totp.generate({ timestamp: clock.now() });
    const wrong = right === '000000' ? '000001' : '000000';
    slow.on = true;
    let answers: { status: number; body: any }[];
    try {
      answers = await Promise.all(Array.from({ length: 40 }, () => api(t, 'POST', '/api/v1/auth/totp/disable', { token: session, body: { code: wrong } })));
    } finally {
      slow.on = false;
    }
    expect(answers.filter((a) => a.body.error?.code === 'auth/wrong_code')).toHaveLength(3);
    expect(answers.filter((a) => a.body.error?.code === 'auth/too_many_attempts')).toHaveLength(37);
    // The name is locked now: even the right code does not turn the factor off.
    expect((await api(t, 'POST', '/api/v1/auth/totp/disable', { token: session, body: { code: right } })).status).toBe(429);
  }, 60_000);

  it('evaluates at most the address bound of 40 parallel wrong codes from one address', async () => {
    const clock = new TestClock();
    const t = await startTestSac(kind, { SAC_LOGIN_ADDRESS_MAX_FAILURES: '2', SAC_LOGIN_MAX_FAILURES: '100' }, { clock });
    daemons.push(t);
    const { ticket, totp } = await ticketWithTotp(t, clock);
    expect(count(await parallelWrongCodes(t, ticket, totp, clock))).toEqual({ 401: 2, 429: 38 });
  }, 60_000);
});
