import type Database from 'better-sqlite3';
import type { LoginSighting } from '../../../../shared/src/index.js';
import type { BaselineValue, LoginBaselinesRepo, UserLogin, UserLoginsRepo } from '../login-intel.types.js';
import { placeholders } from './query.sqlite.js';

/** Migration 68: per-user login baselines, one row per user, dimension and value. */
export const LOGIN_BASELINES_SQLITE_MIGRATION = {
  id: 68,
  name: 'per-user login baselines (new source for user, impossible travel)',
  sql: `
    CREATE TABLE login_baselines (
      user TEXT NOT NULL,
      dim TEXT NOT NULL,
      value TEXT NOT NULL,
      label TEXT,
      count INTEGER NOT NULL,
      first_ms INTEGER NOT NULL,
      last_ms INTEGER NOT NULL,
      sighting TEXT,
      PRIMARY KEY (user, dim, value)
    ) WITHOUT ROWID;
    CREATE INDEX login_baselines_by_time ON login_baselines (last_ms);
  `,
};

/** Migration 69: logins by normalised user (a user's page). */
export const USER_LOGINS_SQLITE_MIGRATION = {
  id: 69,
  name: 'logins by normalised user',
  sql: `
    CREATE TABLE user_logins (
      event_id TEXT PRIMARY KEY,
      user TEXT NOT NULL,
      occurred_ms INTEGER NOT NULL,
      type TEXT NOT NULL,
      outcome TEXT NOT NULL,
      host_id TEXT NOT NULL,
      hostname TEXT NOT NULL,
      address TEXT,
      country TEXT,
      asn INTEGER,
      as_org TEXT
    ) WITHOUT ROWID;
    CREATE INDEX user_logins_by_user ON user_logins (user, occurred_ms);
    CREATE INDEX user_logins_by_time ON user_logins (occurred_ms);
  `,
};

interface BaselineRow extends Omit<BaselineValue, 'sighting'> {
  sighting: string | null;
}

const toRow = (v: BaselineValue): BaselineRow => ({ ...v, sighting: v.sighting === null ? null : JSON.stringify(v.sighting) });
const fromRow = (r: BaselineRow): BaselineValue => ({ ...r, sighting: r.sighting === null ? null : (JSON.parse(r.sighting) as LoginSighting) });

const COLUMNS = 'user, dim, value, label, count, first_ms, last_ms, sighting';
const VALUES = '@user, @dim, @value, @label, @count, @first_ms, @last_ms, @sighting';

export function sqliteLoginBaselines(db: Database.Database): LoginBaselinesRepo {
  // The SET expressions read the row's values before the update: the newest login's label and sighting win.
  const upsert = db.prepare<BaselineRow>(
    `INSERT INTO login_baselines (${COLUMNS}) VALUES (${VALUES})
     ON CONFLICT (user, dim, value) DO UPDATE SET
       count = count + excluded.count,
       label = CASE WHEN excluded.last_ms >= last_ms THEN excluded.label ELSE label END,
       sighting = CASE WHEN excluded.last_ms >= last_ms THEN excluded.sighting ELSE sighting END,
       first_ms = min(first_ms, excluded.first_ms),
       last_ms = max(last_ms, excluded.last_ms)`,
  );
  const insert = db.prepare<BaselineRow>(`INSERT INTO login_baselines (${COLUMNS}) VALUES (${VALUES})`);
  const prune = db.prepare<[number]>('DELETE FROM login_baselines WHERE last_ms < ?');
  const removeOne = db.prepare<[string, string, string]>('DELETE FROM login_baselines WHERE user = ? AND dim = ? AND value = ?');
  const addTx = db.transaction((rows: BaselineValue[], pruneBeforeMs: number) => {
    prune.run(pruneBeforeMs);
    for (const row of rows) upsert.run(toRow(row));
  });
  const removeTx = db.transaction((keys: Pick<BaselineValue, 'user' | 'dim' | 'value'>[]) => {
    for (const k of keys) removeOne.run(k.user, k.dim, k.value);
  });
  const replaceTx = db.transaction((rows: BaselineValue[]) => {
    db.prepare('DELETE FROM login_baselines').run();
    for (const row of rows) insert.run(toRow(row));
  });
  return {
    async add(rows, pruneBeforeMs) {
      addTx(rows, pruneBeforeMs);
    },
    async of(users) {
      if (users.length === 0) return [];
      return db
        .prepare<string[], BaselineRow>(`SELECT ${COLUMNS} FROM login_baselines WHERE user IN (${placeholders(users.length)})`)
        .all(...users)
        .map(fromRow);
    },
    async remove(keys) {
      removeTx(keys);
    },
    async replaceAll(rows) {
      replaceTx(rows);
    },
  };
}

export function sqliteUserLogins(db: Database.Database): UserLoginsRepo {
  const insert = db.prepare<UserLogin>(
    `INSERT OR IGNORE INTO user_logins (event_id, user, occurred_ms, type, outcome, host_id, hostname, address, country, asn, as_org)
     VALUES (@event_id, @user, @occurred_ms, @type, @outcome, @host_id, @hostname, @address, @country, @asn, @as_org)`,
  );
  const prune = db.prepare<[number]>('DELETE FROM user_logins WHERE occurred_ms < ?');
  const list = db.prepare<[string, number], UserLogin>(
    `SELECT event_id, user, occurred_ms, type, outcome, host_id, hostname, address, country, asn, as_org FROM user_logins
     WHERE user = ? ORDER BY occurred_ms DESC, event_id DESC LIMIT ?`,
  );
  const recordTx = db.transaction((rows: UserLogin[], pruneBeforeMs: number) => {
    for (const row of rows) insert.run(row);
    prune.run(pruneBeforeMs);
  });
  return {
    async record(rows, pruneBeforeMs) {
      recordTx(rows, pruneBeforeMs);
    },
    async list(user, limit) {
      return list.all(user, limit);
    },
  };
}
