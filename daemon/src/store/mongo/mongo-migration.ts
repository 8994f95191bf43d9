import type { Db } from 'mongodb';

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
