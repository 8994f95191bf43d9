import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { EnrollInput, EnrollmentCodeRecord, RefreshTokenRecord, Store } from '../../daemon/src/store/index.js';
import { openFreshStore, STORE_KINDS } from '../helpers/stores.js';

function code(overrides: Partial<EnrollmentCodeRecord> = {}): EnrollmentCodeRecord {
  return {
    id: randomUUID(),
    code_hash: randomUUID(),
    user_id: 'u-1',
    created_by: 'admin-1',
    created_ms: 1000,
    expires_ms: 10_000,
    used_ms: null,
    used_by: null,
    revoked_ms: null,
    ...overrides,
  };
}

function enrollInput(overrides: Partial<EnrollInput> = {}): EnrollInput {
  return {
    id: randomUUID(),
    device_uuid: randomUUID(),
    user_id: 'u-1',
    name: 'Pixel',
    platform: 'android',
    app_version: '1.0',
    push_subscription_id: null,
    now_ms: 2000,
    ...overrides,
  };
}

function token(deviceId: string, overrides: Partial<RefreshTokenRecord> = {}): RefreshTokenRecord {
  return { hash: randomUUID(), device_id: deviceId, generation: 1, created_ms: 2000, expires_ms: 100_000, used_ms: null, ...overrides };
}

describe.each(STORE_KINDS)('devices contract: %s', (kind) => {
  let store: Store;
  afterEach(async () => {
    await store?.close();
  });

  it('hands a code to exactly one of 12 parallel enrollments, only while unexpired and unrevoked', async () => {
    store = await openFreshStore(kind);
    const c = code();
    await store.devices.insertCode(c);
    const results = await Promise.all(Array.from({ length: 12 }, () => store.devices.consumeCode(c.code_hash, 5000)));
    const winners = results.filter((r) => r !== null);
    expect(winners).toHaveLength(1);
    expect(winners[0]).toMatchObject({ id: c.id, user_id: 'u-1', used_ms: 5000 });
    expect(await store.devices.consumeCode(c.code_hash, 5001)).toBeNull();

    const expired = code();
    await store.devices.insertCode(expired);
    expect(await store.devices.consumeCode(expired.code_hash, 10_000)).toBeNull();

    const revoked = code();
    await store.devices.insertCode(revoked);
    expect(await store.devices.revokeCode(revoked.id, 3000)).toBe(true);
    expect(await store.devices.revokeCode(revoked.id, 3001)).toBe(false);
    expect(await store.devices.consumeCode(revoked.code_hash, 4000)).toBeNull();
    expect(await store.devices.revokeCode(c.id, 6000)).toBe(false);
    expect(await store.devices.consumeCode('no-such-hash', 4000)).toBeNull();

    await store.devices.markCodeUsedBy(c.id, 'dev-1');
    const listed = await store.devices.listCodes();
    expect(listed.map((x) => x.id).sort()).toEqual([c.id, expired.id, revoked.id].sort());
    expect(listed.find((x) => x.id === c.id)).toMatchObject({ used_ms: 5000, used_by: 'dev-1', revoked_ms: null });
    expect(listed.find((x) => x.id === revoked.id)).toMatchObject({ revoked_ms: 3000, used_ms: null });
  });

  it('re-enrolls a known device_uuid into the same record with the next generation and no old tokens, also in parallel', async () => {
    store = await openFreshStore(kind);
    const first = await store.devices.enroll(enrollInput({ device_uuid: 'uuid-1' }));
    expect(first).toMatchObject({ created: true, previous: null, device: { status: 'enrolled', generation: 1, name: 'Pixel' } });
    const old = token(first.device.id);
    await store.devices.insertRefreshToken(old);
    await store.devices.revoke(first.device.id, 2500);

    const again = await Promise.all(
      Array.from({ length: 5 }, (_, i) => store.devices.enroll(enrollInput({ device_uuid: 'uuid-1', name: `Phone ${i}`, user_id: 'u-2', now_ms: 3000 }))),
    );
    const devices = await store.devices.list();
    expect(devices).toHaveLength(1);
    expect(new Set(again.map((a) => a.device.id))).toEqual(new Set([first.device.id]));
    expect(again.every((a) => !a.created)).toBe(true);
    // Every enrollment got its own generation: no two token sets share one.
    expect(new Set(again.map((a) => a.device.generation)).size).toBe(5);
    expect(devices[0]).toMatchObject({ id: first.device.id, status: 'enrolled', user_id: 'u-2', revoked_ms: null });
    expect(await store.devices.useRefreshToken(old.hash, 3500)).toEqual({ status: 'unknown' });
  });

  it('rotates a refresh token once: one of 10 parallel uses wins, later ones are reuse', async () => {
    store = await openFreshStore(kind);
    const { device } = await store.devices.enroll(enrollInput());
    const t = token(device.id);
    await store.devices.insertRefreshToken(t);
    const uses = await Promise.all(Array.from({ length: 10 }, () => store.devices.useRefreshToken(t.hash, 5000)));
    expect(uses.filter((u) => u.status === 'ok')).toHaveLength(1);
    expect(uses.filter((u) => u.status === 'reused')).toHaveLength(9);
    expect(uses.find((u) => u.status === 'ok')).toMatchObject({ token: { device_id: device.id, generation: 1 } });
    expect(await store.devices.useRefreshToken(t.hash, 6000)).toMatchObject({ status: 'reused', token: { hash: t.hash } });
    expect(await store.devices.useRefreshToken('never-issued', 6000)).toEqual({ status: 'unknown' });
  });

  it('revokes (tokens gone, push kept for the caller to drop), touches only enrolled devices, deletes completely', async () => {
    store = await openFreshStore(kind);
    const a = (await store.devices.enroll(enrollInput({ user_id: 'u-1', push_subscription_id: 'sub-1' }))).device;
    const b = (await store.devices.enroll(enrollInput({ user_id: 'u-2', now_ms: 2100 }))).device;
    const t = token(a.id);
    await store.devices.insertRefreshToken(t);
    await store.devices.touch(a.id, 9000, '1.1');
    expect(await store.devices.byId(a.id)).toMatchObject({ last_seen_ms: 9000, app_version: '1.1' });
    expect((await store.devices.list()).map((d) => d.id)).toEqual([a.id, b.id]);
    expect((await store.devices.list({ user_id: 'u-2' })).map((d) => d.id)).toEqual([b.id]);

    expect(await store.devices.setPush(a.id, 'sub-2')).toMatchObject({ push_subscription_id: 'sub-2' });
    const before = await store.devices.revoke(a.id, 9500);
    expect(before).toMatchObject({ status: 'enrolled', push_subscription_id: 'sub-2' });
    expect(await store.devices.byId(a.id)).toMatchObject({ status: 'revoked', revoked_ms: 9500 });
    expect(await store.devices.useRefreshToken(t.hash, 9600)).toEqual({ status: 'unknown' });
    expect(await store.devices.setPush(a.id, 'sub-3')).toBeNull();
    await store.devices.touch(a.id, 9900);
    expect((await store.devices.byId(a.id))?.last_seen_ms).toBe(9000);
    expect(await store.devices.revoke('nope', 1)).toBeNull();

    expect(await store.devices.delete(a.id)).toMatchObject({ id: a.id });
    expect(await store.devices.byId(a.id)).toBeNull();
    expect(await store.devices.delete(a.id)).toBeNull();
    expect((await store.devices.list()).map((d) => d.id)).toEqual([b.id]);
  });

  it('prunes expired refresh tokens and old codes', async () => {
    store = await openFreshStore(kind);
    const { device } = await store.devices.enroll(enrollInput());
    const stale = token(device.id, { expires_ms: 5000 });
    const live = token(device.id, { expires_ms: 50_000 });
    await store.devices.insertRefreshToken(stale);
    await store.devices.insertRefreshToken(live);
    const oldCode = code({ expires_ms: 3000 });
    const newCode = code({ expires_ms: 30_000 });
    await store.devices.insertCode(oldCode);
    await store.devices.insertCode(newCode);
    await store.devices.prune(6000, 4000);
    expect(await store.devices.useRefreshToken(stale.hash, 6000)).toEqual({ status: 'unknown' });
    expect((await store.devices.useRefreshToken(live.hash, 6000)).status).toBe('ok');
    expect((await store.devices.listCodes()).map((c) => c.id)).toEqual([newCode.id]);
  });
});
