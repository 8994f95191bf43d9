import { randomBytes } from 'node:crypto';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventInput } from '../../shared/src/index.js';
import { startDaemon, type DaemonProcess } from '../../scripts/bench/lib/proc.js';
import { checkStored, type StoreTarget } from '../../scripts/bench/lib/stored-ids.js';
import { waitFor } from '../helpers/clock.js';
import { postEvent } from '../helpers/daemon.js';
import { buildEvent } from '../helpers/events.js';
import { STORE_KINDS, storeEnv, tempDir } from '../helpers/stores.js';

const SENDERS = 24;
const ACKED_BEFORE_KILL = 300;

/**
 * kill -9 during a load run: the daemon runs as a real child process, 24 agents post unique
 * events, the process is killed once a few hundred have been answered 201, and after a restart
 * every acknowledged event must be stored exactly once — and a spool replay of everything must
 * land as 409 for those and exactly once for the ones whose answer was lost.
 */
describe.each(STORE_KINDS)('durability across kill -9 on %s', (kind) => {
  let daemon: DaemonProcess | null = null;
  afterEach(() => {
    if (daemon && daemon.child.exitCode === null) daemon.child.kill('SIGKILL');
  });

  it('stores every event answered 201 exactly once', { timeout: 90_000 }, async () => {
    const dataDir = tempDir();
    const apiKey = `sac_${randomBytes(20).toString('hex')}`;
    const env: Record<string, string> = { ...storeEnv(kind, dataDir), SAC_BOOTSTRAP_API_KEY: apiKey, SAC_LOG_LEVEL: 'warn' };
    const target: StoreTarget =
      kind === 'sqlite' ? { kind, dataDir } : { kind, uri: env.SAC_MONGODB_URI, dbName: env.SAC_MONGODB_DB };

    daemon = await startDaemon(env, { fromSource: true });
    const url = daemon.url;
    const acked: EventInput[] = [];
    const unanswered: EventInput[] = [];
    const otherStatuses: number[] = [];
    let stop = false;
    const sender = async () => {
      while (!stop) {
        const event = buildEvent();
        try {
          const res = await postEvent(url, apiKey, event, { 'Idempotency-Key': event.event_id });
          if (res.status === 201) acked.push(event);
          else otherStatuses.push(res.status);
        } catch {
          unanswered.push(event); // the connection died with the daemon: outcome unknown to the agent
        }
      }
    };
    const senders = Array.from({ length: SENDERS }, sender);
    await waitFor('the acknowledged events before the kill', async () => acked.length >= ACKED_BEFORE_KILL, 30_000);
    daemon.child.kill('SIGKILL');
    stop = true;
    expect(await daemon.exited).toBe('SIGKILL');
    await Promise.all(senders);
    expect(otherStatuses).toEqual([]);

    daemon = await startDaemon(env, { fromSource: true });
    const stored = await checkStored(target, acked.map((e) => e.event_id));
    expect(stored).toMatchObject({ missing: 0, repeated: 0 });
    expect(stored.total).toBeGreaterThanOrEqual(acked.length);

    // The agent's spool replays what it never got an answer for; a replay of acknowledged events is a 409.
    for (const event of unanswered) {
      expect([201, 409]).toContain((await postEvent(daemon.url, apiKey, event)).status);
    }
    for (const event of acked.slice(0, 50)) expect((await postEvent(daemon.url, apiKey, event)).status).toBe(409);
    const all = await checkStored(target, [...acked, ...unanswered].map((e) => e.event_id));
    expect(all).toMatchObject({ missing: 0, repeated: 0, total: acked.length + unanswered.length });
    // SQLite commits a batch's correlation in the batch's transaction: the kill cannot leave a
    // stored event (each one here is a warning that opens or joins a problem) out of its problem.
    if (kind === 'sqlite') expect(unlinkedEvents(dataDir)).toBe(0);
  });
});

/** Stored events that no problem timeline links to. */
function unlinkedEvents(dataDir: string): number {
  const db = new Database(path.join(dataDir, 'sac.sqlite'), { readonly: true, fileMustExist: true });
  try {
    const row = db
      .prepare('SELECT count(*) AS n FROM events e WHERE NOT EXISTS (SELECT 1 FROM problem_events pe WHERE pe.event_id = e.event_id)')
      .get() as { n: number };
    return row.n;
  } finally {
    db.close();
  }
}
