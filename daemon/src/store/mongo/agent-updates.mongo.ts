import { MongoServerError, type Db, type Filter } from 'mongodb';
// Store timers run in wall time, whatever time a test gives the services (see locks.mongo.ts).
import { systemClock } from '../../clock.js';
import { withLock } from './locks.mongo.js';
import type { AgentBundle, AgentUpdateJob, AgentUpdatesRepo, BundleToken } from '../agent-updates.types.js';

export const AGENT_UPDATES_MONGO_MIGRATION = {
  id: 31,
  name: 'agent update jobs, bundle download tokens, built bundles, desired agent configuration per host',
  async up(db: Db) {
    await db.collection('agent_update_jobs').createIndexes([
      { key: { id: 1 }, name: 'id_unique', unique: true },
      { key: { created_ms: -1 }, name: 'by_created' },
      { key: { host_id: 1, created_ms: -1 }, name: 'by_host' },
    ]);
    // One active job per host: a lock document per host, taken while a job is pending or started.
    await db.collection('agent_update_active').createIndexes([{ key: { host_id: 1 }, name: 'host_unique', unique: true }]);
    await db.collection('agent_bundle_tokens').createIndexes([{ key: { hash: 1 }, name: 'hash_unique', unique: true }]);
    await db.collection('agent_bundles').createIndexes([{ key: { product: 1, version: 1 }, name: 'product_version_unique', unique: true }]);
    await db.collection('host_agent_config').createIndexes([{ key: { host_id: 1 }, name: 'host_unique', unique: true }]);
  },
};

const ACTIVE = ['pending', 'started', 'fallback'] as const;
/** How long a host's active-job lock may stand without its job before it is taken as a crash's leftover (its writer inserts the job right after). */
const ACTIVE_LOCK_GRACE_MS = 10_000;

export function mongoAgentUpdates(db: Db): AgentUpdatesRepo {
  const jobs = db.collection<AgentUpdateJob>('agent_update_jobs');
  const activeLocks = db.collection<{ host_id: string; job_id: string; taken_ms?: number }>('agent_update_active');
  const tokens = db.collection<BundleToken>('agent_bundle_tokens');
  const bundles = db.collection<AgentBundle>('agent_bundles');
  const configs = db.collection<{ host_id: string; config: Record<string, unknown>; updated_ms: number; updated_by: string }>('host_agent_config');
  const noId = { projection: { _id: 0 } } as const;
  const activeForHost = (hostId: string) => jobs.findOne({ host_id: hostId, state: { $in: [...ACTIVE] } }, noId);
  return {
    async insertJob(job) {
      for (;;) {
        try {
          await activeLocks.insertOne({ host_id: job.host_id, job_id: job.id, taken_ms: Date.now() });
          break;
        } catch (err) {
          if (!(err instanceof MongoServerError && err.code === 11000)) throw err;
        }
        const current = await activeForHost(job.host_id);
        if (current) return { status: 'active', job: current };
        const lock = await activeLocks.findOne({ host_id: job.host_id });
        if (!lock) continue; // its job ended meanwhile: take the free lock
        // A young lock's job is being inserted by another writer right now: wait for it.
        if (Date.now() - (lock.taken_ms ?? 0) < ACTIVE_LOCK_GRACE_MS) {
          await systemClock.sleep(20);
          continue;
        }
        // The lock outlived its job (a crash between the two writes): take it over, unless another writer just did.
        await withLock(db, `agent_update_active:${job.host_id}`, async () => {
          await activeLocks.updateOne({ host_id: job.host_id, job_id: lock.job_id }, { $set: { job_id: job.id, taken_ms: Date.now() } });
        });
        if ((await activeLocks.findOne({ host_id: job.host_id }))?.job_id === job.id) break;
      }
      await jobs.insertOne({ ...job });
      return { status: 'inserted', job };
    },
    async byId(id) {
      return jobs.findOne({ id }, noId);
    },
    async list(q) {
      const filter: Filter<AgentUpdateJob> = {};
      if (q.host_id) filter.host_id = q.host_id;
      if (q.state) filter.state = q.state;
      return jobs.find(filter, noId).sort({ created_ms: -1, id: 1 }).limit(q.limit).toArray();
    },
    activeForHost,
    async countInProgress(product) {
      return jobs.countDocuments({ product, $or: [{ state: { $in: ['started', 'fallback'] } }, { state: 'pending', offered_ms: { $ne: null } }] });
    },
    async transition(id, from, patch, opts) {
      // Under the job's lock: FerretDB applies a filtered update as read-then-write, so without it two
      // daemons' claims of one job (a push, an abort, the agent's event) could both match.
      const result = await withLock(db, `agent_update_job:${id}`, () =>
        jobs.updateOne({ id, state: { $in: [...from] }, ...(opts?.unoffered ? { offered_ms: null } : {}) }, { $set: patch }),
      );
      if (result.modifiedCount === 0 && result.matchedCount === 0) return null;
      const job = await jobs.findOne({ id }, noId);
      if (job && !ACTIVE.includes(job.state as (typeof ACTIVE)[number])) await activeLocks.deleteOne({ host_id: job.host_id, job_id: job.id });
      return job;
    },
    async stale(beforeMs) {
      return jobs.find({ state: { $in: ['pending', 'started'] }, updated_ms: { $lt: beforeMs } }, noId).sort({ created_ms: 1 }).toArray();
    },
    async insertToken(token) {
      await tokens.insertOne({ ...token });
    },
    async pruneTokens(nowMs) {
      return (await tokens.deleteMany({ expires_ms: { $lte: nowMs } })).deletedCount;
    },
    async consumeToken(hash, nowMs) {
      const token = await tokens.findOne({ hash, expires_ms: { $gt: nowMs } }, noId);
      // deleteOne decides between two concurrent downloads: only the one that deleted it may use it.
      return token && (await tokens.deleteOne({ hash })).deletedCount === 1 ? token : null;
    },
    async bundle(product, version) {
      return bundles.findOne({ product, version }, noId);
    },
    async putBundle(bundle) {
      await bundles.updateOne({ product: bundle.product, version: bundle.version }, { $set: { ...bundle } }, { upsert: true });
    },
    async hostConfig(hostId) {
      return (await configs.findOne({ host_id: hostId }, noId))?.config ?? {};
    },
    async putHostConfig(hostId, config, atMs, by) {
      await configs.updateOne({ host_id: hostId }, { $set: { host_id: hostId, config, updated_ms: atMs, updated_by: by } }, { upsert: true });
    },
  };
}
