import type { Db } from 'mongodb';
import type { ApiKeyRecord, ApiKeysRepo } from '../api-keys.types.js';

type ApiKeyDoc = ApiKeyRecord & { _id?: unknown };

/** Keys stored before host binding existed are unbound. */
function withBinding(doc: ApiKeyDoc): ApiKeyRecord {
  return { ...doc, bound_hostname: doc.bound_hostname ?? null, bound_instance_id: doc.bound_instance_id ?? null, on_mismatch: doc.on_mismatch ?? 'refuse' };
}

export function mongoApiKeys(db: Db): ApiKeysRepo {
  const keys = db.collection<ApiKeyDoc>('api_keys');
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
  };
}
