import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api } from '../helpers/auth.js';
import { startTestSac, type TestSac } from '../helpers/daemon.js';
import { STORE_KINDS } from '../helpers/stores.js';
import { trpc } from '../peers/trpc.js';

const FROM = '2026-11-27T10:00:00Z';
const TO = '2026-11-27T09:00:00Z';

describe.each(STORE_KINDS)('a reversed time range on %s', (kind) => {
  let t: TestSac;
  let token: string;

  beforeAll(async () => {
    t = await startTestSac(kind);
    token = await adminToken(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each(['events', 'problems'])('%s: REST answers 400 naming `to`', async (list) => {
    const res = await api(t, 'GET', `/api/v1/${list}?from=${FROM}&to=${TO}`, { token });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'request/invalid_parameter', details: { parameter: 'to' } });
    expect(res.body.error.message).toBe('to: must not be before from');
    // The same instant on both ends is a range, empty but not reversed.
    expect((await api(t, 'GET', `/api/v1/${list}?from=${FROM}&to=${FROM}`, { token })).status).toBe(200);
  });

  it.each(['events.list', 'problems.list'])('%s: tRPC answers 400 with the code and the field', async (path) => {
    const res = await trpc(t, token, 'query', path, { from: FROM, to: TO });
    expect(res.status).toBe(400);
    expect(res.error.data).toMatchObject({ appCode: 'request/invalid', details: [{ path: 'to', message: 'must not be before from' }] });
    expect(res.error.message).toBe('The request does not match the expected shape');
  });
});
