import type { Db } from 'mongodb';
import type { AgentPinRecord, RolloutRecord, RolloutsRepo } from '../rollouts.types.js';
import { withLock } from './locks.mongo.js';

export const ROLLOUTS_MONGO_MIGRATION = {
  id: 79,
  name: 'staged agent rollouts and version pins',
  async up(db: Db) {
    await db.collection('rollouts').createIndexes([
      { key: { id: 1 }, name: 'id_unique', unique: true },
      { key: { created_ms: -1, id: -1 }, name: 'by_time' },
      { key: { state: 1 }, name: 'by_state' },
    ]);
    await db.collection('agent_pins').createIndexes([
      { key: { id: 1 }, name: 'id_unique', unique: true },
      { key: { product: 1, group_id: 1, host_id: 1 }, name: 'target_unique', unique: true },
    ]);
  },
};

const NO_ID = { projection: { _id: 0 } } as const;

export function mongoRollouts(db: Db): RolloutsRepo {
  const rollouts = db.collection<RolloutRecord>('rollouts');
  const pins = db.collection<AgentPinRecord>('agent_pins');
  return {
    async insert(r) {
      await rollouts.insertOne({ ...r });
    },
    async byId(id) {
      return rollouts.findOne({ id }, NO_ID);
    },
    async list(q) {
      return rollouts
        .find(q.state ? { state: q.state } : {}, NO_ID)
        .sort({ created_ms: -1, id: -1 })
        .limit(q.limit)
        .toArray();
    },
    async unfinished() {
      return rollouts.find({ state: { $in: ['running', 'paused'] } }, NO_ID).sort({ created_ms: 1 }).toArray();
    },
    async update(r, rev) {
      // One document, filtered on its revision, under the rollout's lock: FerretDB applies a
      // filtered replace as read-then-write, so without it two writers of one revision could both match.
      return withLock(db, `rollout:${r.id}`, async () => (await rollouts.replaceOne({ id: r.id, rev }, { ...r })).modifiedCount === 1);
    },
    async pins(product) {
      return pins.find(product === undefined ? {} : { product }, NO_ID).sort({ product: 1, created_ms: 1 }).toArray();
    },
    async putPin(pin) {
      const target = { product: pin.product, group_id: pin.group_id, host_id: pin.host_id };
      const fields = { $set: { max_version: pin.max_version, note: pin.note, created_by: pin.created_by, created_ms: pin.created_ms } };
      try {
        await pins.updateOne(target, { ...fields, $setOnInsert: { id: pin.id } }, { upsert: true });
      } catch (err) {
        // Two daemons inserting the same target at once: the unique index lets one in; the other sets it.
        if ((err as { code?: number }).code !== 11000) throw err;
        await pins.updateOne(target, fields);
      }
      return (await pins.findOne(target, NO_ID))!;
    },
    async pinById(id) {
      return pins.findOne({ id }, NO_ID);
    },
    async removePin(id) {
      return (await pins.deleteOne({ id })).deletedCount === 1;
    },
  };
}
