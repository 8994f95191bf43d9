import { MongoServerError, type Db } from 'mongodb';
import type { SettingsRepo, StoredSetting } from '../settings.types.js';

/** Two concurrent upserts of one new key: the loser gets E11000; once the key exists, a retry is a plain update. */
async function retryOnDuplicate<T>(op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (err) {
    if (err instanceof MongoServerError && err.code === 11000) return op();
    throw err;
  }
}

export function mongoSettings(db: Db): SettingsRepo {
  const settings = db.collection<StoredSetting>('settings');
  const noId = { projection: { _id: 0 } } as const;
  return {
    async get(key) {
      return settings.findOne({ key }, noId);
    },
    async list() {
      return settings.find({}, noId).sort({ key: 1 }).toArray();
    },
    async put(s) {
      await retryOnDuplicate(() => settings.updateOne({ key: s.key }, { $set: { ...s } }, { upsert: true }));
    },
    async insertIfAbsent(s) {
      await retryOnDuplicate(() => settings.updateOne({ key: s.key }, { $setOnInsert: { ...s } }, { upsert: true }));
      return (await settings.findOne({ key: s.key }, noId))!;
    },
  };
}
