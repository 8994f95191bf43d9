import type { Db } from 'mongodb';
import type { ApiKeyRecord, ApiKeysRepo, KeyAgentRecord } from '../api-keys.types.js';
import type { MongoMigration } from './mongo-migration.js';
import { isDuplicateKey } from './query.mongo.js';

type ApiKeyDoc = ApiKeyRecord & { _id?: unknown };

/** Keys stored before host binding existed are unbound. */
function withBinding(doc: ApiKeyDoc): ApiKeyRecord {
  return { ...doc, bound_hostname: doc.bound_hostname ?? null, bound_instance_id: doc.bound_instance_id ?? null, on_mismatch: doc.on_mismatch ?? 'refuse' };
}

export function mongoApiKeys(db: Db): ApiKeysRepo {
  const keys = db.collection<ApiKeyDoc>('api_keys');
  const agents = db.collection<KeyAgentRecord>('api_key_agents');
  return {
    async insert(r) {
      await keys.insertOne({ ...r });
    },
    async byHash(hash) {
      const doc = await keys.findOne({ hash }, { projection: { _id: 0 } });
      return doc && withBinding(doc);
    },
    async list() {
      return (await keys.find({}, { projection: { _id: 0 } }).sort({ created_ms: 1 }).toArray()).map(withBinding);
    },
    async touchMany(touches) {
      await Promise.all(touches.map((t) => keys.updateOne({ id: t.id }, { $max: { last_used_ms: t.at_ms } })));
    },
    async revoke(id, atMs) {
      const res = await keys.updateOne({ id, revoked_ms: null }, { $set: { revoked_ms: atMs } });
      return res.modifiedCount === 1;
    },
    async recordAgent(r) {
      // The unique index keeps the first record when daemons record the same pair at once.
      await agents.insertOne({ ...r }).catch((err: unknown) => {
        if (!isDuplicateKey(err)) throw err;
      });
    },
    async spokeFor(keyId, agentInstanceId) {
      return (await agents.findOne({ key_id: keyId, agent_instance_id: agentInstanceId }, { projection: { _id: 1 } })) !== null;
    },
  };
}

/** Migration 50: which agent installations each key has sent events for, one document per pair. */
export const API_KEY_AGENTS_MONGO_MIGRATION: MongoMigration = {
  id: 50,
  name: 'agent installations each API key has sent events for',
  async up(db) {
    await db.collection('api_key_agents').createIndexes([{ key: { key_id: 1, agent_instance_id: 1 }, name: 'key_agent_unique', unique: true }]);
  },
};
