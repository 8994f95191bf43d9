import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../daemon/src/config.js';
import { hostTypeKey, openStore, type RollupRow, type Store } from '../../daemon/src/store/index.js';
import { STORE_KINDS, storeEnv, tempDir } from '../helpers/stores.js';

const HOUR = 3_600_000;

describe.each(STORE_KINDS)('rollups contract: %s', (kind) => {
  let stores: Store[] = [];
  afterEach(async () => {
    await Promise.all(stores.map((s) => s.close()));
    stores = [];
  });

  it('keeps counters exact under concurrent increments from two daemons sharing the store', async () => {
    // Two stores opened on one database (or one SQLite file): two daemons of one SAC.
    const config = loadConfig(storeEnv(kind, tempDir()));
    if (!config.ok) throw new Error(config.problems.join('; '));
    const first = await openStore(config.config.store);
    stores.push(first);
    const second = await openStore(config.config.store);
    stores.push(second);
    const row = (n: number, severity: RollupRow['severity'] = 'warning'): RollupRow => ({ bucket_ms: 5 * HOUR, dim: 'type', key: 'rdp.login.failed', severity, n });
    await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? first : second).rollups.add([row(1), row(2, 'critical'), { ...row(1), dim: 'host', key: 'h1', severity: 'info' }])),
    );
    await first.rollups.add([row(-5)]);
    const sums = await second.rollups.sum(5 * HOUR, 5 * HOUR);
    const n = (dim: string, key: string, severity: string) => sums.find((r) => r.dim === dim && r.key === key && r.severity === severity)?.n;
    expect(n('type', 'rdp.login.failed', 'warning')).toBe(35);
    expect(n('type', 'rdp.login.failed', 'critical')).toBe(80);
    expect(n('host', 'h1', 'info')).toBe(40);
    expect(await first.rollups.sum(6 * HOUR, 7 * HOUR)).toEqual([]);
  });

  it('drops a deleted host’s counters, whichever daemon wrote them, and keeps the others', async () => {
    const config = loadConfig(storeEnv(kind, tempDir()));
    if (!config.ok) throw new Error(config.problems.join('; '));
    const first = await openStore(config.config.store);
    stores.push(first);
    const second = await openStore(config.config.store);
    stores.push(second);
    const host = (key: string, n: number, bucket = 5 * HOUR): RollupRow => ({ bucket_ms: bucket, dim: 'host', key, severity: 'info', n });
    const hostType = (hostId: string, n: number): RollupRow => ({ ...host(hostTypeKey(hostId, 'agent.heartbeat'), n), dim: 'host_type' });
    await first.rollups.add([host('gone', 3), host('kept', 1), host('gone', 2, 6 * HOUR), hostType('gone', 3), hostType('kept', 1)]);
    await second.rollups.add([host('gone', 4), host('kept', 5), hostType('gone', 4)]);
    await second.hosts.delete('gone');
    const rows = await first.rollups.buckets(5 * HOUR, 6 * HOUR, 'host');
    expect(rows.map((r) => [r.bucket_ms, r.key, r.n])).toEqual([[5 * HOUR, 'kept', 6]]);
    expect((await first.rollups.sum(5 * HOUR, 6 * HOUR)).filter((r) => r.dim === 'host')).toMatchObject([{ key: 'kept', n: 6 }]);
    const perType = await first.rollups.buckets(5 * HOUR, 6 * HOUR, 'host_type');
    expect(perType.map((r) => [r.key, r.n])).toEqual([[hostTypeKey('kept', 'agent.heartbeat'), 1]]);
  });
});
