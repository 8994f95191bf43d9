import type { Db, Filter } from 'mongodb';
import type { CommandCompletion, CommandRecord, CommandState, CommandsRepo } from '../commands.types.js';
import { withLock } from './locks.mongo.js';
import type { MongoMigration } from './mongo-migration.js';

export const COMMANDS_MONGO_MIGRATION: MongoMigration = {
  id: 18,
  name: 'agent command queue (qwinsta, logoff)',
  async up(db) {
    await db.collection('commands').createIndexes([
      { key: { id: 1 }, name: 'id_unique', unique: true },
      { key: { agent_instance_id: 1, state: 1, created_ms: 1 }, name: 'by_agent' },
      { key: { host_id: 1, created_ms: -1 }, name: 'by_host' },
      { key: { created_ms: -1 }, name: 'by_created' },
      { key: { state: 1, expires_ms: 1 }, name: 'open_by_expiry' },
    ]);
  },
};

const OPEN: { $in: CommandState[] } = { $in: ['queued', 'delivered'] };
// Every change of an agent's commands (poll, result, expiry) runs under that agent's lock: FerretDB
// does not make conditional updates atomic, and a command must never go to two polls or take two results.
const agentLock = (agentInstanceId: string) => `commands:${agentInstanceId}`;

export function mongoCommands(db: Db): CommandsRepo {
  const commands = db.collection<CommandRecord>('commands');
  const projection = { _id: 0 } as const;
  const read = (id: string) => commands.findOne({ id }, { projection }) as Promise<CommandRecord | null>;

  return {
    async insert(c) {
      await commands.insertOne({ ...c });
    },
    byId: read,
    async list(q) {
      const filter: Filter<CommandRecord> = {};
      if (q.host_id) filter.host_id = q.host_id;
      if (q.state) filter.state = q.state;
      if (q.before_ms !== undefined) filter.created_ms = { $lt: q.before_ms };
      return (await commands.find(filter, { projection }).sort({ created_ms: -1, id: -1 }).limit(q.limit).toArray()) as CommandRecord[];
    },
    async claimForAgent(agent, keyId, now, redeliverAfterMs, limit) {
      return withLock(db, agentLock(agent), async () => {
        const open = (await commands
          .find({ agent_instance_id: agent, state: OPEN }, { projection })
          .sort({ created_ms: 1, id: 1 })
          .toArray()) as CommandRecord[];
        const delivered: CommandRecord[] = [];
        const expired: CommandRecord[] = [];
        for (const c of open) {
          if (c.expires_ms <= now) {
            await commands.updateOne({ id: c.id }, { $set: { state: 'expired', finished_ms: now, updated_ms: now } });
            expired.push({ ...c, state: 'expired', finished_ms: now, updated_ms: now });
            continue;
          }
          const due = c.state === 'queued' || (c.delivered_ms !== null && c.delivered_ms + redeliverAfterMs <= now);
          if (!due || delivered.length >= limit) continue;
          const next: CommandRecord = { ...c, state: 'delivered', delivered_ms: now, deliveries: c.deliveries + 1, delivered_key_id: keyId, updated_ms: now };
          await commands.updateOne(
            { id: c.id },
            { $set: { state: next.state, delivered_ms: now, deliveries: next.deliveries, delivered_key_id: keyId, updated_ms: now } },
          );
          delivered.push(next);
        }
        return { delivered, expired };
      });
    },
    async complete(id, by, result, now): Promise<CommandCompletion> {
      const first = await read(id);
      if (!first) return { status: 'not_found' };
      return withLock(db, agentLock(first.agent_instance_id), async (): Promise<CommandCompletion> => {
        const c = await read(id);
        if (!c || c.delivered_ms === null) return { status: 'not_found' };
        if (by.agentInstanceId !== null && by.agentInstanceId !== c.agent_instance_id) return { status: 'not_found' };
        if (c.delivered_key_id !== by.keyId) return { status: 'not_found' };
        if (c.state !== 'delivered') return { status: 'already_finished', command: c };
        await commands.updateOne({ id }, { $set: { state: result.status, result, finished_ms: now, updated_ms: now } });
        return { status: 'ok', command: { ...c, state: result.status, result, finished_ms: now, updated_ms: now } };
      });
    },
    async expireDue(now) {
      const due = (await commands.find({ state: OPEN, expires_ms: { $lte: now } }, { projection }).toArray()) as CommandRecord[];
      const expired: CommandRecord[] = [];
      for (const agent of new Set(due.map((c) => c.agent_instance_id))) {
        await withLock(db, agentLock(agent), async () => {
          const still = (await commands
            .find({ agent_instance_id: agent, state: OPEN, expires_ms: { $lte: now } }, { projection })
            .toArray()) as CommandRecord[];
          for (const c of still) {
            await commands.updateOne({ id: c.id }, { $set: { state: 'expired', finished_ms: now, updated_ms: now } });
            expired.push({ ...c, state: 'expired', finished_ms: now, updated_ms: now });
          }
        });
      }
      return expired;
    },
  };
}
