import type { Db } from 'mongodb';
import type { HostState, HostStateRepo } from '../hosts.types.js';
import { withLock, withLocks } from './locks.mongo.js';
import { inParallel } from './query.mongo.js';

export type HostStateDoc = Omit<HostState, 'host_id'> & { _id: string };

function toState(doc: HostStateDoc): HostState {
  const { _id, ...rest } = doc;
  return {
    host_id: _id,
    heartbeat_ms: rest.heartbeat_ms ?? null,
    status: rest.status ?? null,
    inventory: rest.inventory ?? null,
    inventory_ms: rest.inventory_ms ?? null,
    previous_inventory: rest.previous_inventory ?? null,
    previous_inventory_ms: rest.previous_inventory_ms ?? null,
  };
}

export function mongoHostState(db: Db): HostStateRepo {
  const states = db.collection<HostStateDoc>('host_state');
  const hostLock = (hostId: string) => `host_state:${hostId}`;
  /** Reads, changes and writes one host's state under the host's lock. */
  const update = <T>(hostId: string, fn: (current: HostState) => { next: HostState | null; result: T }) =>
    withLock(db, hostLock(hostId), async () => {
      const doc = await states.findOne({ _id: hostId });
      const current = doc ? toState(doc) : toState({ _id: hostId } as HostStateDoc);
      const { next, result } = fn(current);
      if (next) {
        const { host_id: _id, ...fields } = next;
        await states.updateOne({ _id: hostId }, { $set: fields }, { upsert: true });
      }
      return result;
    });
  return {
    async recordHeartbeats(items) {
      const latest = new Map<string, number>();
      for (const i of items) latest.set(i.host_id, Math.max(latest.get(i.host_id) ?? 0, i.at_ms));
      const hostOf = new Map([...latest.keys()].map((hostId) => [hostLock(hostId), hostId]));
      const changed = new Set<string>();
      // All hosts of the batch under their locks at once, one write each: `$max` keeps a later
      // heartbeat already stored, and the status the write replaced tells whether it announced the
      // host online (FerretDB applies it as read-modify-write, hence the locks).
      await withLocks(db, [...hostOf.keys()], async (acquired) => {
        await inParallel(acquired, async (name) => {
          const hostId = hostOf.get(name)!;
          const before = await states.findOneAndUpdate(
            { _id: hostId },
            { $max: { heartbeat_ms: latest.get(hostId)! }, $set: { status: 'online' } },
            // No projection: FerretDB 1.24 implements none for findAndModify.
            { upsert: true, returnDocument: 'before' },
          );
          if (before?.status !== 'online') changed.add(hostId);
        });
      });
      return [...latest.keys()].filter((hostId) => changed.has(hostId));
    },
    async setStatus(hostId, status) {
      // Already so: nothing to write, so no lock (the read alone is atomic).
      if ((await states.findOne({ _id: hostId }))?.status === status) return false;
      return update(hostId, (cur) => (cur.status === status ? { next: null, result: false } : { next: { ...cur, status }, result: true }));
    },
    async byHost(hostId) {
      const doc = await states.findOne({ _id: hostId });
      return doc ? toState(doc) : null;
    },
    async list() {
      return (await states.find({}).toArray()).map(toState);
    },
    async countStale() {
      return states.countDocuments({ status: 'stale' });
    },
    async replaceInventory(hostId, inventory, atMs) {
      return update<{ replaced: boolean; previous: Record<string, unknown> | null }>(hostId, (cur) => {
        if (cur.inventory_ms != null && cur.inventory_ms >= atMs) return { next: null, result: { replaced: false, previous: null } };
        return {
          next: { ...cur, inventory, inventory_ms: atMs, previous_inventory: cur.inventory, previous_inventory_ms: cur.inventory_ms },
          result: { replaced: true, previous: cur.inventory },
        };
      });
    },
  };
}
