import type Database from 'better-sqlite3';
import type { TelegramLinkRecord, TelegramRepo } from '../telegram.types.js';

export function sqliteTelegram(db: Database.Database): TelegramRepo {
  const consume = db.transaction((hash: string, nowMs: number): string | null => {
    const row = db.prepare<[string], { user_id: string; expires_ms: number }>('SELECT user_id, expires_ms FROM telegram_link_codes WHERE hash = ?').get(hash);
    if (!row) return null;
    db.prepare('DELETE FROM telegram_link_codes WHERE hash = ?').run(hash);
    return row.expires_ms > nowMs ? row.user_id : null;
  });
  const link = db.transaction((r: TelegramLinkRecord) => {
    db.prepare('DELETE FROM telegram_links WHERE user_id = ? OR telegram_user_id = ?').run(r.user_id, r.telegram_user_id);
    db.prepare('INSERT INTO telegram_links (user_id, telegram_user_id, telegram_username, linked_ms) VALUES (@user_id, @telegram_user_id, @telegram_username, @linked_ms)').run(r);
  });
  return {
    async putLinkCode(hash, userId, expiresMs) {
      db.transaction(() => {
        db.prepare('DELETE FROM telegram_link_codes WHERE user_id = ?').run(userId);
        db.prepare('INSERT INTO telegram_link_codes (hash, user_id, expires_ms) VALUES (?, ?, ?)').run(hash, userId, expiresMs);
      })();
    },
    async consumeLinkCode(hash, nowMs) {
      return consume(hash, nowMs);
    },
    async pruneLinkCodes(nowMs) {
      return db.prepare('DELETE FROM telegram_link_codes WHERE expires_ms <= ?').run(nowMs).changes;
    },
    async link(r) {
      link(r);
    },
    async byUser(userId) {
      return db.prepare<[string], TelegramLinkRecord>('SELECT * FROM telegram_links WHERE user_id = ?').get(userId) ?? null;
    },
    async byTelegramUser(id) {
      return db.prepare<[string], TelegramLinkRecord>('SELECT * FROM telegram_links WHERE telegram_user_id = ?').get(id) ?? null;
    },
    async unlink(userId) {
      return db.prepare('DELETE FROM telegram_links WHERE user_id = ?').run(userId).changes > 0;
    },
  };
}
