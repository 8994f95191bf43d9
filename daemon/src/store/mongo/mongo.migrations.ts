import type { Db } from 'mongodb';
import { CORRELATION_MONGO_MIGRATION } from './correlation.mongo.js';

/**
 * Numbered migrations of the MongoDB store. Append only. Every step must be idempotent: two
 * daemons starting together may both run it before one of them records it. No TTL indexes:
 * retention is an explicit job.
 */
export interface MongoMigration {
  id: number;
  name: string;
  up(db: Db): Promise<void>;
}

export const MONGO_MIGRATIONS: readonly MongoMigration[] = [
  {
    id: 1,
    name: 'events, hosts and agent API keys',
    async up(db) {
      await db.collection('events').createIndexes([
        { key: { event_id: 1 }, name: 'event_id_unique', unique: true },
        { key: { occurred_ms: -1 }, name: 'by_occurred' },
        { key: { host_id: 1, occurred_ms: -1 }, name: 'by_host' },
      ]);
      await db.collection('hosts').createIndexes([
        { key: { key: 1 }, name: 'key_unique', unique: true },
        { key: { id: 1 }, name: 'id_unique', unique: true },
      ]);
      await db.collection('api_keys').createIndexes([
        { key: { hash: 1 }, name: 'hash_unique', unique: true },
        { key: { id: 1 }, name: 'id_unique', unique: true },
      ]);
    },
  },
  CORRELATION_MONGO_MIGRATION,
];
