import type { Db } from 'mongodb';
import type { MaintenanceRepo, MaintenanceWindowRecord } from '../maintenance.types.js';

/** Windows stored before windows could name host groups name none. */
const withGroups = (w: MaintenanceWindowRecord): MaintenanceWindowRecord => ({ ...w, group_ids: w.group_ids ?? [] });

export function mongoMaintenance(db: Db): MaintenanceRepo {
  const windows = db.collection<MaintenanceWindowRecord>('maintenance_windows');
  const noId = { projection: { _id: 0 } } as const;
  return {
    async insert(w) {
      await windows.insertOne({ ...w });
    },
    async replace(w) {
      return (await windows.replaceOne({ id: w.id }, { ...w })).matchedCount > 0;
    },
    async byId(id) {
      const w = await windows.findOne({ id }, noId);
      return w && withGroups(w);
    },
    async list() {
      return (await windows.find({}, noId).sort({ starts_ms: -1, id: 1 }).toArray()).map(withGroups);
    },
    async current(nowMs) {
      return (await windows.find({ $or: [{ ends_ms: null }, { ends_ms: { $gt: nowMs } }] }, noId).toArray()).map(withGroups);
    },
  };
}
