/** The store interface and the factory that picks the adapter from the configuration. */
import type { StoreConfig } from '../config.js';
import { openMongoStore } from './mongo/mongo.store.js';
import { SQLITE_MIGRATIONS } from './sqlite/sqlite.migrations.js';
import { openSqliteStore } from './sqlite/sqlite.store.js';
import type { Store } from './store.types.js';

/** The ids of the embedded store's migrations this code knows (a backup's are checked against them). */
export const SQLITE_MIGRATION_IDS: readonly number[] = SQLITE_MIGRATIONS.map((m) => m.id);

export { openSqliteStore };
export { bucketOf, foldRollups, hostTypeKey, ROLLUP_BUCKET_MS, splitHostTypeKey } from './rollup-fold.js';
export { GATEWAY_DETAIL_KEYS, LOOKUP_TYPES, RDG_CLOSED, RDG_OPENED } from './detail-lookups.js';
export type * from './store.types.js';
export type * from './events.types.js';
export type * from './notify.types.js';
export type * from './auth.types.js';
export type * from './sessions.types.js';
export type * from './settings.types.js';
export type * from './audit.types.js';
export type * from './hosts.types.js';
export type * from './problems.types.js';
export type * from './rollups.types.js';
export type * from './leases.types.js';
export type * from './api-keys.types.js';
export type * from './agent-versions.types.js';
export type * from './source-failures.types.js';
export type * from './approvals.types.js';
export type * from './rollouts.types.js';
export type * from './login-intel.types.js';
export * from './agent-updates.types.js';
export type * from './maintenance.types.js';
export type * from './groups.types.js';
export type * from './bans.types.js';
export type * from './escalation.types.js';
export type * from './telegram.types.js';
export type * from './totp.types.js';
export type * from './commands.types.js';
export { FINISHED_COMMAND_STATES } from './commands.types.js';
export type * from './devices.types.js';
export type * from './feed.types.js';
export type * from './suggest-values.types.js';

/** Opens the configured store and applies pending migrations. */
export async function openStore(config: StoreConfig): Promise<Store> {
  const store = config.kind === 'mongodb' ? await openMongoStore(config.uri, config.dbName) : openSqliteStore(config.file);
  try {
    await store.migrate();
  } catch (err) {
    await store.close();
    throw err;
  }
  return store;
}
