import type { Db } from 'mongodb';
import type { AgentVersionRecord, AgentVersionsRepo } from '../agent-versions.types.js';

export const AGENT_VERSIONS_MONGO_MIGRATION = {
  id: 30,
  name: 'latest agent versions read from git',
  async up(db: Db) {
    await db.collection('agent_versions').createIndexes([{ key: { product: 1 }, name: 'product_unique', unique: true }]);
  },
};

/** A product whose reads all failed has no version fields stored yet; one stored before migration 60 has no `error_reason`. */
function complete(doc: Partial<AgentVersionRecord> & Pick<AgentVersionRecord, 'product'>): AgentVersionRecord {
  return { latest_version: null, commit: null, checked_ms: null, error: null, error_reason: null, ...doc };
}

export function mongoAgentVersions(db: Db): AgentVersionsRepo {
  const versions = db.collection<AgentVersionRecord>('agent_versions');
  const noId = { projection: { _id: 0 } } as const;
  return {
    async record(outcome) {
      // A failed read keeps the last good version: only the check time and the error change.
      const set = outcome.error === null ? { ...outcome } : { checked_ms: outcome.checked_ms, error: outcome.error, error_reason: outcome.error_reason };
      await versions.updateOne({ product: outcome.product }, { $set: set }, { upsert: true });
      return complete((await versions.findOne({ product: outcome.product }, noId))!);
    },
    async list() {
      return (await versions.find({}, noId).sort({ product: 1 }).toArray()).map(complete);
    },
  };
}
