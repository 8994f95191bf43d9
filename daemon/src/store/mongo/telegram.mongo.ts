import type { Db } from 'mongodb';
import type { TelegramLinkRecord, TelegramRepo } from '../telegram.types.js';
import { withLock } from './locks.mongo.js';

export function mongoTelegram(db: Db): TelegramRepo {
  const links = db.collection<TelegramLinkRecord>('telegram_links');
  const codes = db.collection<{ hash: string; user_id: string; expires_ms: number }>('telegram_link_codes');
  const noId = { projection: { _id: 0 } } as const;
  return {
    async putLinkCode(hash, userId, expiresMs) {
      await codes.deleteMany({ user_id: userId });
      await codes.insertOne({ hash, user_id: userId, expires_ms: expiresMs });
    },
    async consumeLinkCode(hash, nowMs) {
      // findOneAndDelete is not atomic on FerretDB; deleteOne's count is, so one caller wins.
      const doc = await codes.findOne({ hash });
      if (!doc || (await codes.deleteOne({ hash })).deletedCount !== 1) return null;
      return doc.expires_ms > nowMs ? doc.user_id : null;
    },
    async pruneLinkCodes(nowMs) {
      return (await codes.deleteMany({ expires_ms: { $lte: nowMs } })).deletedCount;
    },
    async link(r) {
      // Both sides of a link are unique: the two deletes and the insert happen under one lock.
      await withLock(db, 'telegram_links', async () => {
        await links.deleteMany({ $or: [{ user_id: r.user_id }, { telegram_user_id: r.telegram_user_id }] });
        await links.insertOne({ ...r });
      });
    },
    async byUser(userId) {
      return links.findOne({ user_id: userId }, noId);
    },
    async byTelegramUser(id) {
      return links.findOne({ telegram_user_id: id }, noId);
    },
    async unlink(userId) {
      return (await links.deleteOne({ user_id: userId })).deletedCount > 0;
    },
  };
}
