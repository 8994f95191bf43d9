import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.js';
import { ERROR_STATUS, mapError } from './error-map.js';

const SRC = join(import.meta.dirname, '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const path = join(dir, d.name);
    if (d.isDirectory()) return sourceFiles(path);
    return d.name.endsWith('.ts') && !d.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Codes of every `new AppError('code', …)` in the daemon whose call does not name an operational or unexpected kind. */
function userErrorCodes(): Map<string, string> {
  const codes = new Map<string, string>();
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/new AppError\(\s*'([^']+)'/g)) {
      const call = text.slice(m.index, text.indexOf(');', m.index));
      if (/kind: '(operational|unexpected)'/.test(call)) continue;
      codes.set(m[1], file);
    }
  }
  return codes;
}

describe('mapError', () => {
  it.each([
    [new AppError('problem/not_found', 'x'), 404],
    [new AppError('problem/invalid_transition', 'x'), 409],
    [new AppError('auth/too_many_attempts', 'x', { details: { retry_after_s: 7 } }), 429],
    [new AppError('no/such_code', 'x'), 400],
    [new AppError('store/unavailable', 'x', { kind: 'operational' }), 503],
    [new AppError('problem/not_found', 'x', { kind: 'unexpected' }), 500],
    [new Error('boom'), 500],
  ])('%s → %i', (err, status) => {
    expect(mapError(err).status).toBe(status);
  });

  it('tells a throttled or unavailable caller when to retry', () => {
    expect(mapError(new AppError('auth/too_many_attempts', 'x', { details: { retry_after_s: 7 } })).headers).toEqual({ 'Retry-After': '7' });
    expect(mapError(new AppError('store/unavailable', 'x', { kind: 'operational' })).headers).toEqual({ 'Retry-After': '1' });
  });

  it('never answers with the message of an error SAC did not raise', () => {
    const mapped = mapError(new Error('SELECT secret FROM users'));
    expect(mapped.body).toEqual({ error: { code: 'internal/unexpected', message: 'Internal error' } });
    expect(mapped.log).toBe('error');
  });

  it('has a status for every user error code the daemon throws', () => {
    const missing = [...userErrorCodes()].filter(([code]) => !(code in ERROR_STATUS)).map(([code, file]) => `${code} (${file})`);
    expect(missing).toEqual([]);
    expect(userErrorCodes().size).toBeGreaterThan(15);
  });

  describe('a store that cannot write is an outage, not a bug', () => {
    /** The error SQLite itself raises for `run`, as the store's repositories would see it. */
    function sqliteError(run: (dir: string) => void): unknown {
      const dir = mkdtempSync(join(tmpdir(), 'sac-errmap-'));
      try {
        run(dir);
      } catch (err) {
        return err;
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      throw new Error('SQLite did not fail');
    }
    const setUp = (dir: string) => {
      const db = new Database(join(dir, 'a.db'));
      db.exec('CREATE TABLE t (x INTEGER PRIMARY KEY)');
      db.close();
    };

    it.each([
      ['read-only database (SQLITE_READONLY)', (dir: string) => {
        setUp(dir);
        new Database(join(dir, 'a.db'), { readonly: true }).exec('INSERT INTO t VALUES (1)');
      }],
      ['locked by another writer (SQLITE_BUSY)', (dir: string) => {
        setUp(dir);
        const holder = new Database(join(dir, 'a.db'));
        holder.exec('BEGIN EXCLUSIVE');
        new Database(join(dir, 'a.db'), { timeout: 10 }).exec('INSERT INTO t VALUES (1)');
      }],
    ])('%s → 503 store/unavailable with Retry-After', (_name, run) => {
      const mapped = mapError(sqliteError(run));
      expect([mapped.status, mapped.body.error.code, mapped.headers['Retry-After']]).toEqual([503, 'store/unavailable', '1']);
      expect(mapped.log).toBe('warn');
    });

    it('full disk and I/O errors of the driver or the file system → 503', () => {
      for (const code of ['SQLITE_FULL', 'SQLITE_IOERR_WRITE', 'SQLITE_READONLY_DBMOVED', 'ENOSPC', 'EROFS', 'EIO']) {
        expect(mapError(Object.assign(new Error('x'), { code })).status, code).toBe(503);
      }
    });

    it('a constraint violation stays an internal error (a bug, not an outage)', () => {
      const err = sqliteError((dir) => {
        setUp(dir);
        const db = new Database(join(dir, 'a.db'));
        db.exec('INSERT INTO t VALUES (1)');
        db.exec('INSERT INTO t VALUES (1)');
      });
      expect(mapError(err).status).toBe(500);
    });
  });
});
