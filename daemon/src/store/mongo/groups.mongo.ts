import type { Db } from 'mongodb';
import type { GroupRecord, GroupsRepo } from '../groups.types.js';
import { isDuplicateKey } from './query.mongo.js';

export const GROUPS_MONGO_MIGRATION = {
  id: 70,
  name: 'host groups: explicit members and membership rules',
  async up(db: Db) {
    await db.collection('host_groups').createIndexes([
      { key: { id: 1 }, name: 'id_unique', unique: true },
      { key: { name_key: 1 }, name: 'name_unique', unique: true },
    ]);
  },
};

export const USER_HOST_GROUPS_MONGO_MIGRATION = {
  id: 71,
  name: 'users limited to host groups',
  async up(db: Db) {
    await db.collection('user_host_groups').createIndexes([{ key: { user_id: 1 }, name: 'user_unique', unique: true }]);
  },
};

type GroupDoc = GroupRecord & { name_key: string };

export function mongoGroups(db: Db): GroupsRepo {
  const groups = db.collection<GroupDoc>('host_groups');
  const limits = db.collection<{ user_id: string; group_ids: string[] }>('user_host_groups');
  const noId = { projection: { _id: 0, name_key: 0 } } as const;
  const doc = (g: GroupRecord): GroupDoc => ({ ...g, name_key: g.name.toLowerCase() });
  return {
    async insert(g) {
      try {
        await groups.insertOne(doc(g));
        return true;
      } catch (err) {
        if (isDuplicateKey(err)) return false;
        throw err;
      }
    },
    async replace(g) {
      // FerretDB answers an update that breaks a unique index with code 1, not E11000: the name is
      // checked first; the index still refuses a concurrent rename (MongoDB's E11000 is mapped too).
      if (await groups.findOne({ name_key: g.name.toLowerCase(), id: { $ne: g.id } }, { projection: { _id: 1 } })) return 'duplicate';
      try {
        return (await groups.replaceOne({ id: g.id }, doc(g))).matchedCount > 0 ? 'ok' : 'not_found';
      } catch (err) {
        if (isDuplicateKey(err)) return 'duplicate';
        throw err;
      }
    },
    async remove(id) {
      return (await groups.deleteOne({ id })).deletedCount > 0;
    },
    async byId(id) {
      return groups.findOne({ id }, noId);
    },
    async list() {
      return groups.find({}, noId).sort({ name_key: 1, id: 1 }).toArray();
    },
    async userLimit(userId) {
      return (await limits.findOne({ user_id: userId }))?.group_ids ?? null;
    },
    async setUserLimit(userId, groupIds) {
      if (groupIds === null) await limits.deleteOne({ user_id: userId });
      else await limits.updateOne({ user_id: userId }, { $set: { group_ids: groupIds } }, { upsert: true });
    },
  };
}
