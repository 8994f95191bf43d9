import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../daemon/src/clock.js';
import { loadConfig } from '../../daemon/src/config.js';
import { JobRunner, type Job } from '../../daemon/src/jobs/index.js';
import { openStore, type Store } from '../../daemon/src/store/index.js';
import { storeEnv, STORE_KINDS, tempDir } from '../helpers/stores.js';

const T0 = Date.parse('2026-06-03T09:00:00.000Z');
const MARKER = 'test.leader_marker';

describe.each(STORE_KINDS)('leader jobs fenced by their lease token: %s', (kind) => {
  let stores: Store[] = [];
  afterEach(async () => {
    await Promise.all(stores.map((s) => s.close()));
    stores = [];
  });

  it('keeps a leader paused past its lease from writing its side effect after another daemon took over', async () => {
    const result = loadConfig(storeEnv(kind, tempDir()));
    if (!result.ok) throw new Error(result.problems.join('; '));
    stores = [await openStore(result.config.store), await openStore(result.config.store)];
    let now = T0;
    const clock = { ...systemClock, now: () => now };
    const logs: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(line) });
    const [a, b] = [new JobRunner(stores[0].leases, clock, logger, 'A'), new JobRunner(stores[1].leases, clock, logger, 'B')];
    let resumeA!: () => void;
    const paused = new Promise<void>((r) => (resumeA = r));
    let aPaused!: () => void;
    const aReachedPause = new Promise<void>((r) => (aPaused = r));
    // A once-per-cluster side effect, written right after the fence check (as the real jobs do).
    const job = (who: string, pause: boolean): Job => ({
      name: 'marker',
      intervalMs: 1000,
      run: async (fence) => {
        if (pause) {
          aPaused();
          await paused;
        }
        await fence.check();
        await stores[who === 'A' ? 0 : 1].settings.put({ key: MARKER, value: `${who}:${fence.token}`, updated_ms: now, updated_by: null });
      },
    });
    const runA = a.tick(job('A', true));
    await aReachedPause;
    // A stalls past its 30 s lease; B takes the job over and writes.
    now += 30_001;
    await b.tick(job('B', false));
    expect((await stores[1].settings.get(MARKER))?.value).toBe('B:2');
    resumeA();
    await runA;
    // A's run stopped at its fence: B's write stands, and A says why it stopped.
    expect((await stores[0].settings.get(MARKER))?.value).toBe('B:2');
    expect(logs.some((l) => l.includes('another daemon leads it now') && l.includes('job/lease_lost'))).toBe(true);
    // A's next tick finds the lease held by B and does not run.
    now += 1000;
    await a.tick(job('A', false));
    expect((await stores[0].settings.get(MARKER))?.value).toBe('B:2');
    await Promise.all([a.stop(), b.stop()]);
  });
});
