import type { Db } from 'mongodb';
import type { MaintenanceRepo, MaintenanceWindowRecord } from '../maintenance.types.js';

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
      return windows.findOne({ id }, noId);
    },
    async list() {
      return windows.find({}, noId).sort({ starts_ms: -1, id: 1 }).toArray();
    },
    async current(nowMs) {
      return windows.find({ $or: [{ ends_ms: null }, { ends_ms: { $gt: nowMs } }] }, noId).toArray();
    },
  };
}
