import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { loadMasterKey, SecretBox } from '../settings/index.js';
import { openSqliteStore } from '../store/index.js';
import { createBackup, restoreBackup, runBackupCommand } from './index.js';

const clock = { now: () => Date.parse('2026-11-27T12:00:00Z') };
const tmp = (prefix: string) => mkdtempSync(path.join(os.tmpdir(), prefix));

/** A data dir as a daemon leaves it: the database with a sealed JWT secret, and the master-key file. */
async function dataDirWithSecret(): Promise<{ dataDir: string; key: string }> {
  const dataDir = tmp('sac-backup-unit-');
  const { key } = loadMasterKey(undefined, dataDir);
  const store = openSqliteStore(path.join(dataDir, 'sac.sqlite'));
  await store.settings.put({ key: 'internal.jwt_secret', value: new SecretBox(key).encrypt('jwt', 'internal.jwt_secret'), updated_ms: 1, updated_by: null });
  await store.close();
  return { dataDir, key };
}

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  }
  return 'no error';
}

describe('backup and restore refusals', () => {
  let dataDir: string;
  let key: string;
  let backup: string;
  beforeEach(async () => {
    ({ dataDir, key } = await dataDirWithSecret());
    backup = path.join(tmp('sac-backups-'), 'b1');
    createBackup({ dataDir, target: backup, masterKey: undefined, clock });
  });
  const fresh = () => path.join(tmp('sac-restore-unit-'), 'data');

  it('writes the manifest and the master key apart, and restores into a new directory', () => {
    const manifest = JSON.parse(readFileSync(path.join(backup, 'manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({ format: 'sac-backup', format_version: 1, store: 'sqlite', created_at: '2026-11-27T12:00:00.000Z', master_key: 'b1.master-key' });
    expect(manifest.migration_level).toBe(Math.max(...manifest.migrations));
    expect(readFileSync(`${backup}.master-key`, 'utf8').trim()).toBe(key);
    expect(readFileSync(path.join(backup, 'sac.sqlite')).includes(Buffer.from(key))).toBe(false);
    const target = fresh();
    restoreBackup({ source: backup, dataDir: target, masterKey: undefined });
    expect(readdirSync(target).sort()).toEqual(['master-key', 'sac.sqlite']);
  });

  it('refuses a backup directory that exists and a data dir without a database', () => {
    expect(codeOf(() => createBackup({ dataDir, target: backup, masterKey: undefined, clock }))).toBe('backup/target_exists');
    expect(codeOf(() => createBackup({ dataDir: tmp('sac-empty-'), target: `${backup}-2`, masterKey: undefined, clock }))).toBe('backup/no_database');
    expect(existsSync(`${backup}-2.partial`)).toBe(false);
  });

  it('refuses a data dir that is not empty, and writes nothing', () => {
    const target = tmp('sac-nonempty-');
    writeFileSync(path.join(target, 'notes.txt'), 'x');
    expect(codeOf(() => restoreBackup({ source: backup, dataDir: target, masterKey: undefined }))).toBe('backup/data_dir_not_empty');
    expect(readdirSync(target)).toEqual(['notes.txt']);
  });

  it('refuses a damaged snapshot, a missing or foreign manifest, and a backup of a newer SAC', () => {
    const db = path.join(backup, 'sac.sqlite');
    const bytes = readFileSync(db);
    bytes[bytes.length - 1] ^= 0xff;
    writeFileSync(db, bytes);
    expect(codeOf(() => restoreBackup({ source: backup, dataDir: fresh(), masterKey: undefined }))).toBe('backup/checksum_mismatch');
    bytes[bytes.length - 1] ^= 0xff;
    writeFileSync(db, bytes);

    const manifestFile = path.join(backup, 'manifest.json');
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
    writeFileSync(manifestFile, JSON.stringify({ ...manifest, migrations: [...manifest.migrations, 9999] }));
    expect(codeOf(() => restoreBackup({ source: backup, dataDir: fresh(), masterKey: undefined }))).toBe('backup/too_new');
    writeFileSync(manifestFile, JSON.stringify({ ...manifest, format: 'tarball' }));
    expect(codeOf(() => restoreBackup({ source: backup, dataDir: fresh(), masterKey: undefined }))).toBe('backup/invalid');
    rmSync(manifestFile);
    expect(codeOf(() => restoreBackup({ source: backup, dataDir: fresh(), masterKey: undefined }))).toBe('backup/invalid');
  });

  it('refuses without the master key or with another one; SAC_MASTER_KEY replaces the file', () => {
    const target = fresh();
    expect(codeOf(() => restoreBackup({ source: backup, dataDir: target, masterKey: 'another-master-key-of-at-least-32-characters' }))).toBe('backup/wrong_master_key');
    expect(existsSync(target)).toBe(false);
    rmSync(`${backup}.master-key`);
    expect(codeOf(() => restoreBackup({ source: backup, dataDir: target, masterKey: undefined }))).toBe('backup/no_master_key');
    restoreBackup({ source: backup, dataDir: target, masterKey: key });
    expect(readdirSync(target)).toEqual(['sac.sqlite']);
  });

  it('the command refuses a MongoDB store and wrong arguments', () => {
    const lines: string[] = [];
    const io = { out: (t: string) => lines.push(t), err: (t: string) => lines.push(t), clock };
    const mongo = loadConfig({ SAC_DATA_DIR: dataDir, SAC_MONGODB_URI: 'mongodb://127.0.0.1:1/sac' });
    if (!mongo.ok) throw new Error(mongo.problems.join('; '));
    expect(runBackupCommand('backup', [`${backup}-m`], mongo.config, io)).toBe(1);
    expect(lines.join('')).toContain('mongodump');
    const sqlite = loadConfig({ SAC_DATA_DIR: dataDir });
    if (!sqlite.ok) throw new Error(sqlite.problems.join('; '));
    expect(runBackupCommand('backup', [], sqlite.config, io)).toBe(2);
    expect(runBackupCommand('restore', [backup], sqlite.config, io)).toBe(1);
    expect(lines.at(-1)).toContain('is not empty');
  });
});
