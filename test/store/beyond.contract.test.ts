import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { MaintenanceWindowRecord, Store, TotpRecord } from '../../daemon/src/store/index.js';
import { openFreshStore, STORE_KINDS } from '../helpers/stores.js';

function window(overrides: Partial<MaintenanceWindowRecord> = {}): MaintenanceWindowRecord {
  return {
    id: randomUUID(),
    hosts: ['rds01'],
    type_prefixes: ['rdp.login'],
    rules: [],
    starts_ms: 1000,
    ends_ms: 5000,
    recurrence: null,
    reason: 'patching',
    created_by: 'admin',
    created_ms: 1,
    updated_ms: 1,
    ended_early_ms: null,
    ...overrides,
  };
}

function totp(userId: string, overrides: Partial<TotpRecord> = {}): TotpRecord {
  return { user_id: userId, secret: 'sealed', enabled: false, last_step: 0, recovery_hashes: [], created_ms: 1, enabled_ms: null, ...overrides };
}

describe.each(STORE_KINDS)('maintenance, escalation, Telegram link and TOTP contract: %s', (kind) => {
  let store: Store;
  afterEach(async () => {
    await store?.close();
  });

  it('stores, replaces and lists maintenance windows; current() leaves out ended ones', async () => {
    store = await openFreshStore(kind);
    const oneOff = window();
    const recurring = window({ ends_ms: null, recurrence: { weekdays: [0, 6], start: '23:00', duration_minutes: 90, timezone: 'Europe/Moscow' }, starts_ms: 2000 });
    await store.maintenance.insert(oneOff);
    await store.maintenance.insert(recurring);
    expect(await store.maintenance.byId(recurring.id)).toEqual(recurring);
    expect((await store.maintenance.list()).map((w) => w.id)).toEqual([recurring.id, oneOff.id]);
    expect((await store.maintenance.current(4999)).map((w) => w.id).sort()).toEqual([oneOff.id, recurring.id].sort());
    expect((await store.maintenance.current(5000)).map((w) => w.id)).toEqual([recurring.id]);
    expect(await store.maintenance.replace({ ...oneOff, ends_ms: 9000, ended_early_ms: null, reason: 'longer' })).toBe(true);
    expect((await store.maintenance.byId(oneOff.id))?.reason).toBe('longer');
    expect(await store.maintenance.replace(window())).toBe(false);
  });

  it('records each escalation step once, also under 10 parallel claims', async () => {
    store = await openFreshStore(kind);
    const claims = await Promise.all(Array.from({ length: 10 }, () => store.escalation.claimStep('p1', 1, 10)));
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await store.escalation.claimStep('p1', 2, 20)).toBe(true);
    expect(await store.escalation.claimStep('p2', 1, 20)).toBe(true);
    expect(Object.fromEntries(await store.escalation.lastSteps(['p1', 'p2', 'p3']))).toEqual({ p1: 2, p2: 1 });
    expect((await store.escalation.lastSteps([])).size).toBe(0);
  });

  it('consumes a link code once and keeps one link per user and per Telegram account', async () => {
    store = await openFreshStore(kind);
    await store.telegram.putLinkCode('h1', 'u1', 5000);
    const consumed = await Promise.all(Array.from({ length: 8 }, () => store.telegram.consumeLinkCode('h1', 1000)));
    expect(consumed.filter((c) => c === 'u1')).toHaveLength(1);
    await store.telegram.putLinkCode('h2', 'u2', 5000);
    expect(await store.telegram.consumeLinkCode('h2', 5000)).toBeNull();
    await store.telegram.link({ user_id: 'u1', telegram_user_id: '42', telegram_username: 'anna', linked_ms: 1 });
    await store.telegram.link({ user_id: 'u2', telegram_user_id: '42', telegram_username: 'anna', linked_ms: 2 });
    expect(await store.telegram.byUser('u1')).toBeNull();
    expect((await store.telegram.byTelegramUser('42'))?.user_id).toBe('u2');
    expect(await store.telegram.unlink('u2')).toBe(true);
    expect(await store.telegram.unlink('u2')).toBe(false);
  });

  it('accepts a TOTP step only once and later steps only, even under parallel use; recovery codes are single-use', async () => {
    store = await openFreshStore(kind);
    expect(await store.totp.putPending(totp('u1'))).toBe(true);
    expect(await store.totp.useStep('u1', 5)).toBe(false); // not enabled yet
    expect(await store.totp.enable('u1', 100, ['r1', 'r2'], 7)).toBe(true);
    expect(await store.totp.enable('u1', 101, [], 8)).toBe(false);
    expect(await store.totp.putPending(totp('u1'))).toBe(false);
    const uses = await Promise.all(Array.from({ length: 8 }, () => store.totp.useStep('u1', 101)));
    expect(uses.filter(Boolean)).toHaveLength(1);
    expect(await store.totp.useStep('u1', 100)).toBe(false);
    const recoveries = await Promise.all(Array.from({ length: 6 }, () => store.totp.useRecoveryCode('u1', 'r1')));
    expect(recoveries.filter(Boolean)).toHaveLength(1);
    expect((await store.totp.get('u1'))).toMatchObject({ enabled: true, last_step: 101, recovery_hashes: ['r2'], enabled_ms: 7 });
    expect(await store.totp.remove('u1')).toBe(true);
    expect(await store.totp.get('u1')).toBeNull();
  });
});
