import type { Db } from 'mongodb';
import type { AgentPinRecord, RolloutRecord, RolloutsRepo } from '../rollouts.types.js';

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
      // One document, filtered on its revision: of two concurrent writers one matches.
      const res = await rollouts.replaceOne({ id: r.id, rev }, { ...r });
      return res.modifiedCount === 1;
    },
    async pins(product) {
      return pins.find(product === undefined ? {} : { product }, NO_ID).sort({ product: 1, created_ms: 1 }).toArray();
    },
    async putPin(pin) {
      const { id, ...fields } = pin;
      const stored = await pins.findOneAndUpdate(
        { product: pin.product, group_id: pin.group_id, host_id: pin.host_id },
        { $set: { max_version: fields.max_version, note: fields.note, created_by: fields.created_by, created_ms: fields.created_ms }, $setOnInsert: { id } },
        { upsert: true, returnDocument: 'after', projection: { _id: 0 } },
      );
      return stored!;
    },
    async pinById(id) {
      return pins.findOne({ id }, NO_ID);
    },
    async removePin(id) {
      return (await pins.deleteOne({ id })).deletedCount === 1;
    },
  };
}
