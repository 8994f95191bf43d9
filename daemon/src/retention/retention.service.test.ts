import { describe, expect, it } from 'vitest';
import { adminActor, ingestNow, serviceBed, silentLogger } from '../../../test/helpers/services.js';
import { RetentionService } from './retention.service.js';

const T0 = Date.parse('2026-06-03T09:00:00.000Z');
const HOUR = 3600_000;
const DAY = 24 * HOUR;

describe('retention, the retention job on a fake clock', () => {
  const bed = serviceBed(T0);

  it('deletes events past their retention and the audit log past its own at the hourly run after, keeping the rest', async () => {
    const { store, clock, audit, startJobs } = await bed.start();
    const retention = new RetentionService({
      store,
      clock,
      logger: silentLogger,
      options: { auditMs: 10 * DAY, eventMs: 7 * DAY, loginWindowMs: HOUR, enrollmentCodeHistoryMs: DAY },
    });
    const jobs = startJobs([{ name: 'retention', intervalMs: HOUR, run: async (fence) => void (await retention.run(fence)) }]);
    const titles = async () => (await store.events.search({ hidden: [], limit: 10 })).map((e) => e.event.title).sort();
    const actions = async () => (await store.audit.list({ limit: 10 })).map((e) => e.action);

    await ingestNow(store, clock, [{ title: 'first' }]);
    await audit.record({ action: 'settings.updated', actor: adminActor });
    await jobs.advance(3 * DAY);
    await ingestNow(store, clock, [{ title: 'second' }]);

    expect(await jobs.advance(4 * DAY - HOUR)).toBe(4 * 24 - 1);
    expect(await titles()).toEqual(['first', 'second']);
    // The first run past seven days.
    await jobs.advance(2 * HOUR);
    expect(await titles()).toEqual(['second']);
    expect(await actions()).toEqual(['settings.updated']);
    // Ten days and an hour: the audit entry has gone, and so has the event of day three.
    await jobs.advance(3 * DAY);
    expect(await actions()).toEqual([]);
    expect(await titles()).toEqual([]);
  });
});
