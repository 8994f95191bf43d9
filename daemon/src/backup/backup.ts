import { createHash } from 'node:crypto';
import { closeSync, copyFileSync, existsSync, fsyncSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { z } from 'zod';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { ensurePrivateDir, restrictFiles, writeSecretFile } from '../secret-files.js';
import { MASTER_KEY_FILE, SecretBox } from '../settings/index.js';
import { SQLITE_MIGRATION_IDS } from '../store/index.js';
import { SAC_VERSION } from '../version.js';

/**
 * A backup of the embedded store is a directory: `sac.sqlite` (a consistent snapshot made with
 * `VACUUM INTO`) and `manifest.json`. The master key that decrypts the stored secrets is never in
 * it: it goes to `<backup>.master-key` beside it (mode 0600), to be kept somewhere else.
 */
const BACKUP_FORMAT = 'sac-backup';
const BACKUP_FORMAT_VERSION = 1;
const BACKUP_DB_FILE = 'sac.sqlite';
const BACKUP_MANIFEST_FILE = 'manifest.json';
/** The database file of a data dir (config.ts names it the same). */
const DATA_DB_FILE = 'sac.sqlite';
/** Settings row that is always sealed with the master key (auth/tokens.ts) unless SAC_JWT_SECRET is given. */
const JWT_SECRET_SETTING = 'internal.jwt_secret';

const ManifestSchema = z.object({
  format: z.literal(BACKUP_FORMAT),
  format_version: z.literal(BACKUP_FORMAT_VERSION),
  sac_version: z.string(),
  created_at: z.string(),
  store: z.literal('sqlite'),
  /** Ids of the migrations applied in the snapshot; the highest is its migration level. */
  migrations: z.array(z.number().int()),
  migration_level: z.number().int(),
  database: z.object({ file: z.literal(BACKUP_DB_FILE), bytes: z.number().int(), sha256: z.string().regex(/^[0-9a-f]{64}$/) }),
  /** Where the master key was written, or `SAC_MASTER_KEY` when it comes from the environment. */
  master_key: z.string(),
});
export type BackupManifest = z.infer<typeof ManifestSchema>;

/** The master key file kept beside (not inside) a backup. */
function masterKeyFileOf(backupDir: string): string {
  return `${path.resolve(backupDir)}.master-key`;
}

function sha256File(file: string): string {
  const hash = createHash('sha256');
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(1 << 20);
    for (let n = readSync(fd, buf); n > 0; n = readSync(fd, buf)) hash.update(buf.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}

function fsyncPath(p: string): void {
  const fd = openSync(p, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function appliedMigrations(file: string): number[] {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT id FROM schema_migrations ORDER BY id').all() as { id: number }[]).map((r) => r.id);
  } finally {
    db.close();
  }
}

export interface BackupResult {
  dir: string;
  manifest: BackupManifest;
  /** The file the master key was written to; null when it comes from SAC_MASTER_KEY. */
  masterKeyFile: string | null;
}

/**
 * Snapshots the embedded store of `dataDir` into the new directory `target` while the daemon runs;
 * unless the key comes from SAC_MASTER_KEY or `saveMasterKey` is false (scheduled backups), the
 * master-key file is copied to `<target>.master-key`.
 * `VACUUM INTO` reads the database in one read transaction on a connection of its own: in WAL mode
 * writers go on committing beside it (ingest is not blocked), and the copy is the database as of
 * the transaction's start. The work is done in `<target>.partial` and renamed at the end, so a
 * directory named `target` is always a complete backup.
 */
export function createBackup(opts: { dataDir: string; target: string; masterKey: string | undefined; clock: Pick<Clock, 'now'>; saveMasterKey?: boolean }): BackupResult {
  const dir = path.resolve(opts.target);
  const source = path.join(opts.dataDir, DATA_DB_FILE);
  if (!existsSync(source)) throw new AppError('backup/no_database', `No embedded store at ${source}: is SAC_DATA_DIR right?`);
  if (existsSync(dir)) throw new AppError('backup/target_exists', `${dir} already exists: name a new backup`);
  const saveKey = opts.saveMasterKey !== false && !opts.masterKey;
  const keyText = saveKey ? readMasterKeyFile(path.join(opts.dataDir, MASTER_KEY_FILE)) : null;
  const partial = `${dir}.partial`;
  rmSync(partial, { recursive: true, force: true });
  ensurePrivateDir(partial);
  try {
    const snapshot = path.join(partial, BACKUP_DB_FILE);
    const db = new Database(source, { fileMustExist: true });
    try {
      db.pragma('busy_timeout = 5000');
      db.prepare('VACUUM INTO ?').run(snapshot);
    } finally {
      db.close();
    }
    fsyncPath(snapshot);
    const migrations = appliedMigrations(snapshot);
    const manifest: BackupManifest = {
      format: BACKUP_FORMAT,
      format_version: BACKUP_FORMAT_VERSION,
      sac_version: SAC_VERSION,
      created_at: new Date(opts.clock.now()).toISOString(),
      store: 'sqlite',
      migrations,
      migration_level: Math.max(0, ...migrations),
      database: { file: BACKUP_DB_FILE, bytes: statSync(snapshot).size, sha256: sha256File(snapshot) },
      master_key: saveKey ? path.basename(masterKeyFileOf(dir)) : opts.masterKey ? 'SAC_MASTER_KEY' : `not saved: the data dir's ${MASTER_KEY_FILE} file`,
    };
    writeFileSync(path.join(partial, BACKUP_MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
    fsyncPath(path.join(partial, BACKUP_MANIFEST_FILE));
    const masterKeyFile = keyText === null ? null : masterKeyFileOf(dir);
    if (masterKeyFile) writeSecretFile(masterKeyFile, `${keyText}\n`);
    renameSync(partial, dir);
    fsyncPath(path.dirname(dir));
    return { dir, manifest, masterKeyFile };
  } catch (err) {
    rmSync(partial, { recursive: true, force: true });
    throw err;
  }
}

function readMasterKeyFile(file: string): string {
  if (!existsSync(file)) throw new AppError('backup/no_master_key', `No master key at ${file} and SAC_MASTER_KEY is not set`);
  return readFileSync(file, 'utf8').trim();
}

/** Reads and checks a backup: its manifest, the snapshot's checksum, and that this SAC knows its migrations. */
export function verifyBackup(dirArg: string): BackupManifest {
  const dir = path.resolve(dirArg);
  const manifestFile = path.join(dir, BACKUP_MANIFEST_FILE);
  if (!existsSync(manifestFile)) throw new AppError('backup/invalid', `${dir} is not a SAC backup: no ${BACKUP_MANIFEST_FILE}`);
  let parsed: z.ZodSafeParseResult<BackupManifest>;
  try {
    parsed = ManifestSchema.safeParse(JSON.parse(readFileSync(manifestFile, 'utf8')));
  } catch {
    throw new AppError('backup/invalid', `${manifestFile} is not JSON`);
  }
  if (!parsed.success) throw new AppError('backup/invalid', `${manifestFile} is not a SAC backup manifest: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const manifest = parsed.data;
  const db = path.join(dir, BACKUP_DB_FILE);
  if (!existsSync(db)) throw new AppError('backup/invalid', `${db} is missing`);
  if (statSync(db).size !== manifest.database.bytes || sha256File(db) !== manifest.database.sha256) {
    throw new AppError('backup/checksum_mismatch', `${db} does not match the checksum in ${BACKUP_MANIFEST_FILE}: the backup is damaged`);
  }
  const known = new Set(SQLITE_MIGRATION_IDS);
  const unknown = manifest.migrations.filter((id) => !known.has(id));
  if (unknown.length > 0) {
    throw new AppError('backup/too_new', `The backup has migrations this SAC (${SAC_VERSION}) does not know (${unknown.join(', ')}): restore it with SAC ${manifest.sac_version} or newer`);
  }
  return manifest;
}

/**
 * Restores a backup into `dataDir`, which must be empty or absent: the snapshot becomes the data
 * dir's database and, unless the master key comes from SAC_MASTER_KEY, the key file beside the
 * backup (or `masterKeyFile`) becomes its master-key file. The key is checked against a secret
 * stored in the snapshot before anything is written.
 */
export function restoreBackup(opts: { source: string; dataDir: string; masterKey: string | undefined; masterKeyFile?: string }): BackupManifest {
  const manifest = verifyBackup(opts.source);
  const dataDir = path.resolve(opts.dataDir);
  if (existsSync(dataDir) && readdirSync(dataDir).length > 0) {
    throw new AppError('backup/data_dir_not_empty', `${dataDir} is not empty: restore into an empty or new data directory`);
  }
  const keyFile = opts.masterKeyFile ?? masterKeyFileOf(opts.source);
  if (!opts.masterKey && !existsSync(keyFile)) {
    throw new AppError('backup/no_master_key', `The master key is needed: put it at ${keyFile} or set SAC_MASTER_KEY`);
  }
  const keyText = opts.masterKey ?? readFileSync(keyFile, 'utf8').trim();
  const snapshot = path.join(path.resolve(opts.source), BACKUP_DB_FILE);
  checkMasterKey(snapshot, keyText);
  ensurePrivateDir(dataDir);
  const target = path.join(dataDir, DATA_DB_FILE);
  const tmp = `${target}.restoring`;
  copyFileSync(snapshot, tmp);
  restrictFiles([tmp]);
  fsyncPath(tmp);
  renameSync(tmp, target);
  if (!opts.masterKey) writeSecretFile(path.join(dataDir, MASTER_KEY_FILE), `${keyText}\n`);
  fsyncPath(dataDir);
  return manifest;
}

/** Throws unless `key` decrypts the snapshot's JWT secret (absent only when SAC_JWT_SECRET was always given). */
function checkMasterKey(snapshot: string, key: string): void {
  const db = new Database(snapshot, { readonly: true, fileMustExist: true });
  let row: { value: string } | undefined;
  try {
    row = db.prepare<[string], { value: string }>('SELECT value FROM settings WHERE key = ?').get(JWT_SECRET_SETTING);
  } finally {
    db.close();
  }
  if (!row) return;
  try {
    new SecretBox(key).decrypt(row.value, JWT_SECRET_SETTING);
  } catch {
    throw new AppError('backup/wrong_master_key', 'The master key does not decrypt the secrets in this backup: use the key saved with it');
  }
}
