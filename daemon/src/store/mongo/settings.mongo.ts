import type { Db } from 'mongodb';
import type { SettingsRepo, StoredSetting } from '../settings.types.js';

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
      await settings.updateOne({ key: s.key }, { $set: { ...s } }, { upsert: true });
    },
    async insertIfAbsent(s) {
      await settings.updateOne({ key: s.key }, { $setOnInsert: { ...s } }, { upsert: true });
      return (await settings.findOne({ key: s.key }, noId))!;
    },
  };
}
