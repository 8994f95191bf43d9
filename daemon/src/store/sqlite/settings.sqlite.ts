import type Database from 'better-sqlite3';
import type { SettingsRepo, StoredSetting } from '../settings.types.js';

export function sqliteSettings(db: Database.Database): SettingsRepo {
  const get = db.prepare<[string], StoredSetting>('SELECT * FROM settings WHERE key = ?');
  return {
    async get(key) {
      return get.get(key) ?? null;
    },
    async list() {
      return db.prepare<[], StoredSetting>('SELECT * FROM settings ORDER BY key').all();
    },
    async put(s) {
      db.prepare(`INSERT INTO settings (key, value, updated_ms, updated_by) VALUES (@key, @value, @updated_ms, @updated_by)
        ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_ms = excluded.updated_ms, updated_by = excluded.updated_by`).run(s);
    },
    async insertIfAbsent(s) {
      db.prepare(`INSERT INTO settings (key, value, updated_ms, updated_by) VALUES (@key, @value, @updated_ms, @updated_by)
        ON CONFLICT (key) DO NOTHING`).run(s);
      return get.get(s.key)!;
    },
  };
}
