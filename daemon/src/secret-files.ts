import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, existsSync, fsyncSync, linkSync, mkdirSync, openSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';

/** Creates `dir` (and parents) and makes it owner-only (0700): it holds the database and secret files. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (process.platform !== 'win32' && (statSync(dir).mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

/** Makes existing files owner-only (0600), e.g. a database created by an older version. */
export function restrictFiles(files: string[]): void {
  if (process.platform === 'win32') return;
  for (const file of files) if (existsSync(file) && (statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
}

/**
 * Writes a secret file atomically with mode 0600: the text goes to a fresh temporary file (created
 * 0600, so never readable by others, even for a moment), is synced, and then takes the file's
 * name in one step, so a crash leaves the old file or the new one, never a torn one.
 * `exclusive`: keep an existing file (returns false) instead of replacing it.
 */
export function writeSecretFile(file: string, text: string, opts: { exclusive?: boolean } = {}): boolean {
  ensurePrivateDir(path.dirname(file));
  const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    if (!opts.exclusive) {
      renameSync(tmp, file);
      return true;
    }
    try {
      // link() fails when the name exists: the first writer wins, atomically.
      linkSync(tmp, file);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw err;
    }
  } finally {
    if (existsSync(tmp)) unlinkSync(tmp);
  }
}
