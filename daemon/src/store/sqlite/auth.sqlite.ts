import type Database from 'better-sqlite3';
import type {
  LoginThrottleRepo,
  StreamTicketsRepo,
  UserChange,
  UserPatch,
  UserRecord,
  UsersRepo,
} from '../auth.types.js';
import { patchedUser, removesLastAdmin } from '../user-rules.js';

type Db = Database.Database;

interface UserRow extends Omit<UserRecord, 'active'> {
  username_key: string;
  active: number;
}

function userFromRow({ username_key: _key, active, ...rest }: UserRow): UserRecord {
  return { ...rest, active: active === 1 };
}

/** Users remember their latest sign-in (the Users page shows it). */
export const USERS_LAST_LOGIN_SQLITE_MIGRATION = {
  id: 34,
  name: 'users: time of the latest sign-in',
  sql: 'ALTER TABLE users ADD COLUMN last_login_ms INTEGER;',
};

export function sqliteUsers(db: Db): UsersRepo {
  const byId = db.prepare<[string], UserRow>('SELECT * FROM users WHERE id = ?');
  const otherActiveAdmins = db.prepare<[string], { n: number }>(
    "SELECT count(*) AS n FROM users WHERE role = 'admin' AND active = 1 AND id != ?",
  );
  const write = db.prepare(`UPDATE users SET display_name = @display_name, role = @role, active = @active,
    password_hash = @password_hash, token_version = @token_version, updated_ms = @updated_ms WHERE id = @id`);

  // Read, check and write in one write transaction: two admins demoting each other cannot both win.
  const update = db.transaction((id: string, patch: UserPatch): UserChange => {
    const row = byId.get(id);
    if (!row) return { status: 'not_found' };
    const before = userFromRow(row);
    const next = patchedUser(before, patch);
    if (removesLastAdmin(before, next, otherActiveAdmins.get(id)!.n)) return { status: 'last_admin' };
    write.run({ ...next, active: next.active ? 1 : 0 });
    return { status: 'ok', user: next };
  });
  const remove = db.transaction((id: string): UserChange => {
    const row = byId.get(id);
    if (!row) return { status: 'not_found' };
    const user = userFromRow(row);
    if (removesLastAdmin(user, null, otherActiveAdmins.get(id)!.n)) return { status: 'last_admin' };
    db.prepare('DELETE FROM users WHERE id = ?').run(id);
    return { status: 'ok', user };
  });

  return {
    async insert(u) {
      const { changes } = db
        .prepare(`INSERT INTO users (id, username, username_key, display_name, role, active, password_hash, token_version,
          created_ms, updated_ms, last_login_ms) VALUES (@id, @username, @username_key, @display_name, @role, @active, @password_hash,
          @token_version, @created_ms, @updated_ms, @last_login_ms) ON CONFLICT (username_key) DO NOTHING`)
        .run({ ...u, username_key: u.username.toLowerCase(), active: u.active ? 1 : 0 });
      return changes === 1 ? 'inserted' : 'duplicate';
    },
    async byId(id) {
      const row = byId.get(id);
      return row ? userFromRow(row) : null;
    },
    async byUsername(username) {
      const row = db.prepare<[string], UserRow>('SELECT * FROM users WHERE username_key = ?').get(username.toLowerCase());
      return row ? userFromRow(row) : null;
    },
    async list() {
      return db.prepare<[], UserRow>('SELECT * FROM users ORDER BY username_key').all().map(userFromRow);
    },
    async count() {
      return (db.prepare('SELECT count(*) AS n FROM users').get() as { n: number }).n;
    },
    async update(id, patch) {
      return update.immediate(id, patch);
    },
    async delete(id) {
      return remove.immediate(id);
    },
    async recordLogin(id, atMs) {
      db.prepare('UPDATE users SET last_login_ms = ? WHERE id = ? AND (last_login_ms IS NULL OR last_login_ms < ?)').run(atMs, id, atMs);
    },
  };
}

export function sqliteLoginThrottle(db: Db): LoginThrottleRepo {
  const get = db.prepare<[string], { failures: string; locked_until_ms: number | null }>(
    'SELECT failures, locked_until_ms FROM login_throttle WHERE key = ?',
  );
  const record = db.transaction((key: string, atMs: number, keep: number): number[] => {
    const row = get.get(key);
    const failures = [...(row ? (JSON.parse(row.failures) as number[]) : []), atMs].slice(-keep);
    db.prepare(`INSERT INTO login_throttle (key, failures, locked_until_ms) VALUES (?, ?, NULL)
      ON CONFLICT (key) DO UPDATE SET failures = excluded.failures`).run(key, JSON.stringify(failures));
    return failures;
  });
  const unlock = db.transaction((key: string, nowMs: number): number | null => {
    const until = get.get(key)?.locked_until_ms ?? null;
    db.prepare("UPDATE login_throttle SET failures = '[]', locked_until_ms = NULL WHERE key = ?").run(key);
    return until !== null && until > nowMs ? until : null;
  });
  return {
    async state(key) {
      const row = get.get(key);
      return row ? { failures_ms: JSON.parse(row.failures) as number[], locked_until_ms: row.locked_until_ms } : null;
    },
    async recordFailure(key, atMs, keep) {
      return record.immediate(key, atMs, keep);
    },
    async lock(key, untilMs, nowMs) {
      const { changes } = db
        .prepare(`UPDATE login_throttle SET locked_until_ms = ?, failures = '[]'
          WHERE key = ? AND (locked_until_ms IS NULL OR locked_until_ms <= ?)`)
        .run(untilMs, key, nowMs);
      return changes === 1;
    },
    async clear(key) {
      db.prepare("UPDATE login_throttle SET failures = '[]' WHERE key = ?").run(key);
    },
    async unlock(key, nowMs) {
      return unlock.immediate(key, nowMs);
    },
    async locksOf(keys, nowMs) {
      const rows = db
        .prepare<[string, number], { key: string; locked_until_ms: number }>(
          'SELECT key, locked_until_ms FROM login_throttle WHERE key IN (SELECT value FROM json_each(?)) AND locked_until_ms > ?',
        )
        .all(JSON.stringify(keys), nowMs);
      return new Map(rows.map((r) => [r.key, r.locked_until_ms]));
    },
    async prune(failuresBeforeMs, nowMs) {
      return db
        .prepare(`DELETE FROM login_throttle WHERE (locked_until_ms IS NULL OR locked_until_ms <= ?)
          AND coalesce((SELECT max(value) FROM json_each(failures)), 0) < ?`)
        .run(nowMs, failuresBeforeMs).changes;
    },
  };
}

export function sqliteStreamTickets(db: Db): StreamTicketsRepo {
  return {
    async insert(hash, userId, expiresMs, session) {
      db.prepare('INSERT INTO stream_tickets (hash, user_id, expires_ms, session_id, ends_ms) VALUES (?, ?, ?, ?, ?)').run(
        hash,
        userId,
        expiresMs,
        session?.session_id ?? null,
        session?.ends_ms ?? null,
      );
    },
    async consume(hash, nowMs) {
      const row = db
        .prepare<[string], { user_id: string; expires_ms: number; session_id: string | null; ends_ms: number | null }>(
          'DELETE FROM stream_tickets WHERE hash = ? RETURNING user_id, expires_ms, session_id, ends_ms',
        )
        .get(hash);
      if (!row || row.expires_ms <= nowMs) return null;
      return { user_id: row.user_id, session: row.session_id !== null && row.ends_ms !== null ? { session_id: row.session_id, ends_ms: row.ends_ms } : null };
    },
    async prune(nowMs) {
      db.prepare('DELETE FROM stream_tickets WHERE expires_ms <= ?').run(nowMs);
    },
  };
}
