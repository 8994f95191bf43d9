import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { MaintenanceWindowRecord, Store } from '../../daemon/src/store/index.js';
import { openFreshStore, STORE_KINDS } from '../helpers/stores.js';

function window(overrides: Partial<MaintenanceWindowRecord> = {}): MaintenanceWindowRecord {
  return {
    id: randomUUID(),
    hosts: ['rds01'],
    group_ids: [],
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

describe.each(STORE_KINDS)('maintenance windows contract: %s', (kind) => {
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
});
