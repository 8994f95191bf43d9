import { statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseEvent } from '../../shared/src/index.js';
import { hostObservation } from '../../daemon/src/ingest/ingest.rules.js';
import type { NewEvent, Store } from '../../daemon/src/store/index.js';
import { openSqliteStore } from '../../daemon/src/store/sqlite/sqlite.store.js';
import { waitFor } from '../helpers/clock.js';
import { buildEvent } from '../helpers/events.js';
import { tempDir } from '../helpers/stores.js';

/** Small, so a few thousand events go far past it (an event writes about 4.5 KiB of WAL). */
const WAL_LIMIT = 2 ** 20;
const BATCHES = 160;
const BATCH = 32;

function newEvent(): NewEvent {
  const parsed = parseEvent(buildEvent());
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  const receivedMs = Date.now();
  return {
    event: parsed.event,
    host: hostObservation(parsed.event, receivedMs),
    occurred_ms: Date.parse(parsed.event.occurred_at),
    received_ms: receivedMs,
    actor_user: 'administrator',
    agent_version: parsed.event.source.product_version,
  };
}

/**
 * The embedded store's WAL under steady ingest: commits on one connection (the ingest thread's),
 * reads on the other (the main thread's, which runs the checkpoint thread), as in the daemon.
 * PASSIVE checkpoints alone let the WAL file grow by every stretch of commits that never left the
 * checkpoint caught up, for ever (the soak saw gigabytes).
 */
describe('SQLite WAL under continuous ingest', () => {
  const stores: Store[] = [];
  afterEach(async () => {
    for (const s of stores.splice(0).reverse()) await s.close();
  });

  it('comes back under its size limit while ingest and reads go on, in the same file', { timeout: 120_000 }, async () => {
    const file = path.join(tempDir(), 'sac.sqlite');
    const wal = `${file}-wal`;
    const main = openSqliteStore(file, { checkpoints: true, walLimitBytes: WAL_LIMIT });
    const ingest = openSqliteStore(file, { checkpoints: false, walLimitBytes: WAL_LIMIT });
    stores.push(main, ingest);
    let inserted = 0;
    // One batch committed and synced on the ingest connection, then a read on the main one; the WAL file's size after.
    const ingestBatch = async (): Promise<number> => {
      const outcomes = await ingest.events.insertBatch(Array.from({ length: BATCH }, newEvent));
      inserted += outcomes.filter((o) => o.status === 'inserted').length;
      await main.events.count();
      return statSync(wal).size;
    };
    const backUnderLimit = (what: string) =>
      // Polled by committing: a restarted WAL is truncated by the first commit after the restart.
      waitFor(what, async () => (await ingestBatch()) <= WAL_LIMIT, 30_000);

    await ingestBatch();
    const walFile = statSync(wal).ino;
    for (let i = 0; i < BATCHES; i++) {
      // Past four times the limit (a checkpoint turn late on a busy machine), it must come back.
      if ((await ingestBatch()) > 4 * WAL_LIMIT) await backUnderLimit(`the WAL back under its limit after batch ${i}`);
    }
    await backUnderLimit('the WAL back under its limit at the end');

    // Restarted and truncated in place, never replaced: the descriptor wal-sync fdatasyncs before
    // every 201 is still the WAL's.
    expect(statSync(wal).ino).toBe(walFile);
    expect(inserted).toBeGreaterThan(BATCHES * BATCH);
    expect(await main.events.count()).toBe(inserted);
  });
});
