import type { Db } from 'mongodb';
import type { AgentVersionRecord, AgentVersionsRepo } from '../agent-versions.types.js';

export const AGENT_VERSIONS_MONGO_MIGRATION = {
  id: 30,
  name: 'latest agent versions read from git',
  async up(db: Db) {
    await db.collection('agent_versions').createIndexes([{ key: { product: 1 }, name: 'product_unique', unique: true }]);
  },
};

export function mongoAgentVersions(db: Db): AgentVersionsRepo {
  const versions = db.collection<AgentVersionRecord>('agent_versions');
  const noId = { projection: { _id: 0 } } as const;
  return {
    async record(outcome) {
      // A failed read keeps the last good version: only the check time and the error change.
      const update =
        outcome.error === null
          ? { $set: { ...outcome } }
          : { $set: { checked_ms: outcome.checked_ms, error: outcome.error }, $setOnInsert: { latest_version: null, commit: null } };
      // updateOne + findOne rather than findOneAndUpdate: FerretDB drops $setOnInsert on that path.
      await versions.updateOne({ product: outcome.product }, update, { upsert: true });
      return (await versions.findOne({ product: outcome.product }, noId))!;
    },
    async list() {
      return versions.find({}, noId).sort({ product: 1 }).toArray();
    },
  };
}
