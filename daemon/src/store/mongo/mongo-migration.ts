import type { Db } from 'mongodb';

/**
 * Numbered migrations of the MongoDB store. Append only. They run under a store lock, one daemon
 * at a time (mongo.store.ts), but every step must still be idempotent: a daemon that dies midway
 * leaves a step done and not recorded, which the next start redoes. No TTL indexes: retention is
 * an explicit job.
 */
export interface MongoMigration {
  id: number;
  name: string;
  up(db: Db): Promise<void>;
}
