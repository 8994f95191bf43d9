import { randomUUID } from 'node:crypto';
import type { EventInput } from '../../../shared/src/index.js';
import { loadFixtures } from '../../helpers/events.js';
import { test } from '@playwright/test';
import { startE2eSac, type E2eSac } from './sac.js';

/**
 * Posts the 24 agent fixtures (Windows and Linux agents, RD Gateway flap pair, bruteforce, lockout,
 * heartbeats, inventory, daily reports) with fresh event ids, shifted in time so that the newest
 * happened five minutes ago and their spacing (the 4 s flap pair) is kept.
 */
export async function seedFixtures(sac: E2eSac): Promise<EventInput[]> {
  const fixtures = loadFixtures();
  const newest = Math.max(...fixtures.map((e) => Date.parse(e.occurred_at)));
  const shift = Date.now() - 5 * 60_000 - newest;
  const seeded = fixtures.map((e) => ({ ...e, event_id: randomUUID(), occurred_at: new Date(Date.parse(e.occurred_at) + shift).toISOString() }));
  for (const e of seeded) await sac.post(e);
  return seeded;
}

/**
 * One fresh daemon seeded with the agent fixtures for the whole spec file. The returned object is
 * filled in before the first test runs and the daemon is closed after the last.
 */
export function useSeededSac(env?: Parameters<typeof startE2eSac>[0]): E2eSac {
  const sac = {} as E2eSac;
  test.beforeAll(async () => {
    Object.assign(sac, await startE2eSac(env));
    await seedFixtures(sac);
  });
  test.afterAll(async () => {
    await sac.close?.();
  });
  return sac;
}
