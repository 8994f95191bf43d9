import type Database from 'better-sqlite3';
import type { TotpRecord, TotpRepo } from '../totp.types.js';

interface Row extends Omit<TotpRecord, 'enabled' | 'recovery_hashes'> {
  enabled: number;
  recovery_hashes: string;
}

const fromRow = (r: Row): TotpRecord => ({ ...r, enabled: r.enabled === 1, recovery_hashes: JSON.parse(r.recovery_hashes) as string[] });

export function sqliteTotp(db: Database.Database): TotpRepo {
  const get = db.prepare<[string], Row>('SELECT * FROM user_totp WHERE user_id = ?');
  const useRecovery = db.transaction((userId: string, hash: string): boolean => {
    const row = get.get(userId);
    if (!row || row.enabled !== 1) return false;
    const hashes = JSON.parse(row.recovery_hashes) as string[];
    if (!hashes.includes(hash)) return false;
    db.prepare('UPDATE user_totp SET recovery_hashes = ? WHERE user_id = ?').run(JSON.stringify(hashes.filter((h) => h !== hash)), userId);
    return true;
  });
  return {
    async get(userId) {
      const row = get.get(userId);
      return row ? fromRow(row) : null;
    },
    async putPending(r) {
      const res = db
        .prepare(`INSERT INTO user_totp (user_id, secret, enabled, last_step, recovery_hashes, created_ms, enabled_ms)
          VALUES (@user_id, @secret, 0, @last_step, @recovery_hashes, @created_ms, NULL)
          ON CONFLICT (user_id) DO UPDATE SET secret = excluded.secret, last_step = excluded.last_step,
            recovery_hashes = excluded.recovery_hashes, created_ms = excluded.created_ms WHERE user_totp.enabled = 0`)
        .run({ ...r, recovery_hashes: JSON.stringify(r.recovery_hashes) });
      return res.changes > 0;
    },
    async enable(userId, step, hashes, nowMs) {
      return (
        db
          .prepare('UPDATE user_totp SET enabled = 1, last_step = ?, recovery_hashes = ?, enabled_ms = ? WHERE user_id = ? AND enabled = 0 AND last_step < ?')
          .run(step, JSON.stringify(hashes), nowMs, userId, step).changes > 0
      );
    },
    async useStep(userId, step) {
      return db.prepare('UPDATE user_totp SET last_step = ? WHERE user_id = ? AND enabled = 1 AND last_step < ?').run(step, userId, step).changes > 0;
    },
    async useRecoveryCode(userId, hash) {
      return useRecovery(userId, hash);
    },
    async remove(userId) {
      return db.prepare('DELETE FROM user_totp WHERE user_id = ?').run(userId).changes > 0;
    },
  };
}
