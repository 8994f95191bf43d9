import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyBackup } from '../../daemon/src/backup/index.js';
import { adminToken, api } from '../helpers/auth.js';
import { ingestEvent, startTestSac, type TestSac } from '../helpers/daemon.js';
import { TestClock, waitFor } from '../helpers/clock.js';
import { STORE_KINDS, tempDir } from '../helpers/stores.js';

const HOUR_MS = 3_600_000;
const complete = (dir: string) => readdirSync(dir).filter((n) => /^sac-backup-\d{8}T\d{6}Z$/.test(n)).sort();

describe.each(STORE_KINDS)('the backup setting on %s', (kind) => {
  let t: TestSac;
  const clock = new TestClock();
  afterAll(async () => t?.close());

  it(kind === 'sqlite' ? 'checks the directory, takes a backup every interval, keeps the newest N, and logs a failure' : 'is refused: MongoDB is backed up with mongodump', { timeout: 120_000 }, async () => {
    t = await startTestSac(kind, { SAC_BACKUP_CHECK_SECONDS: '0.1' }, { clock });
    const token = await adminToken(t);
    const put = (values: Record<string, unknown>) => api(t, 'PATCH', '/api/v1/settings/backup', { token, body: values });
    const dir = tempDir('sac-scheduled-');
    if (kind === 'mongodb') {
      const refused = await put({ enabled: true, directory: dir });
      expect(refused.status).toBe(400);
      expect(refused.body.error.details).toEqual([{ path: 'enabled', message: expect.stringContaining('mongodump') }]);
      return;
    }
    await ingestEvent(t);
    const file = path.join(dir, 'a-file');
    writeFileSync(file, '');
    for (const [directory, message] of [
      ['backups', 'must be an absolute path'],
      [path.join(dir, 'missing'), 'must be an existing directory the SAC service can write'],
      [file, 'is not a directory'],
    ]) {
      const res = await put({ enabled: true, directory });
      expect(res.status, directory).toBe(400);
      expect(res.body.error.details).toContainEqual({ path: 'directory', message });
    }
    expect((await put({ enabled: true })).body.error.details).toContainEqual({ path: 'directory', message: 'is required when backups are enabled' });
    expect((await put({ enabled: true, directory: dir, interval_hours: 1, keep: 2 })).status).toBe(200);

    const first = await waitFor('the first scheduled backup', () => complete(dir).length === 1 && complete(dir), 20_000);
    expect(existsSync(path.join(dir, first[0], 'manifest.json'))).toBe(true);
    clock.advance(HOUR_MS + 1000);
    await waitFor('the second scheduled backup', () => complete(dir).length === 2, 20_000);
    clock.advance(HOUR_MS + 1000);
    const kept = await waitFor('the third backup, and the first deleted', () => {
      const names = complete(dir);
      return names.length === 2 && !names.includes(first[0]) && names;
    }, 20_000);
    for (const name of kept) {
      expect(verifyBackup(path.join(dir, name)).store).toBe('sqlite');
      // The master key is kept apart once, not beside every scheduled backup.
      expect(existsSync(path.join(dir, `${name}.master-key`))).toBe(false);
    }
    expect(t.logs.filter((l) => l.includes('scheduled backup written'))).toHaveLength(3);

    // A directory that went away: the job fails and says so in the log; it tries again at the next tick.
    rmSync(dir, { recursive: true });
    clock.advance(HOUR_MS + 1000);
    await waitFor('the failed backup in the log', () => t.logs.some((l) => l.includes('"job":"backup"') && l.includes('job failed')), 20_000);
  });
});
