import type Database from 'better-sqlite3';
import type { GroupRecord, GroupsRepo } from '../groups.types.js';

export const GROUPS_SQLITE_MIGRATION = {
  id: 70,
  name: 'host groups: explicit members and membership rules',
  sql: `
    CREATE TABLE host_groups (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      name_key TEXT NOT NULL UNIQUE,
      description TEXT NOT NULL,
      host_ids TEXT NOT NULL,
      rules TEXT NOT NULL,
      created_by TEXT,
      created_ms INTEGER NOT NULL,
      updated_ms INTEGER NOT NULL
    );
  `,
};

interface Row {
  id: string;
  name: string;
  description: string;
  host_ids: string;
  rules: string;
  created_by: string | null;
  created_ms: number;
  updated_ms: number;
}

const COLUMNS = 'id, name, description, host_ids, rules, created_by, created_ms, updated_ms';
const fromRow = ({ host_ids, rules, ...r }: Row): GroupRecord => ({
  ...r,
  host_ids: JSON.parse(host_ids) as string[],
  rules: JSON.parse(rules) as GroupRecord['rules'],
});
const toRow = (g: GroupRecord) => ({ ...g, name_key: g.name.toLowerCase(), host_ids: JSON.stringify(g.host_ids), rules: JSON.stringify(g.rules) });

export const USER_HOST_GROUPS_SQLITE_MIGRATION = {
  id: 71,
  name: 'users limited to host groups',
  sql: `
    CREATE TABLE user_host_groups (
      user_id TEXT PRIMARY KEY,
      group_ids TEXT NOT NULL
    );
  `,
};

export function sqliteGroups(db: Database.Database): GroupsRepo {
  const insert = db.prepare(`INSERT INTO host_groups (id, name, name_key, description, host_ids, rules, created_by, created_ms, updated_ms)
    VALUES (@id, @name, @name_key, @description, @host_ids, @rules, @created_by, @created_ms, @updated_ms) ON CONFLICT (name_key) DO NOTHING`);
  const nameTaken = db.prepare<[string, string], { id: string }>('SELECT id FROM host_groups WHERE name_key = ? AND id <> ?');
  const replace = db.prepare(`UPDATE host_groups SET name = @name, name_key = @name_key, description = @description, host_ids = @host_ids,
    rules = @rules, updated_ms = @updated_ms WHERE id = @id`);
  const replaceChecked = db.transaction((g: GroupRecord): 'ok' | 'not_found' | 'duplicate' => {
    if (nameTaken.get(g.name.toLowerCase(), g.id)) return 'duplicate';
    return replace.run(toRow(g)).changes > 0 ? 'ok' : 'not_found';
  });
  return {
    async insert(g) {
      return insert.run(toRow(g)).changes === 1;
    },
    async replace(g) {
      return replaceChecked(g);
    },
    async remove(id) {
      return db.prepare('DELETE FROM host_groups WHERE id = ?').run(id).changes > 0;
    },
    async byId(id) {
      const row = db.prepare<[string], Row>(`SELECT ${COLUMNS} FROM host_groups WHERE id = ?`).get(id);
      return row ? fromRow(row) : null;
    },
    async list() {
      return db.prepare<[], Row>(`SELECT ${COLUMNS} FROM host_groups ORDER BY name_key, id`).all().map(fromRow);
    },
    async userLimit(userId) {
      const row = db.prepare<[string], { group_ids: string }>('SELECT group_ids FROM user_host_groups WHERE user_id = ?').get(userId);
      return row ? (JSON.parse(row.group_ids) as string[]) : null;
    },
    async setUserLimit(userId, groupIds) {
      if (groupIds === null) db.prepare('DELETE FROM user_host_groups WHERE user_id = ?').run(userId);
      else
        db.prepare('INSERT INTO user_host_groups (user_id, group_ids) VALUES (?, ?) ON CONFLICT (user_id) DO UPDATE SET group_ids = excluded.group_ids').run(
          userId,
          JSON.stringify(groupIds),
        );
    },
  };
}
