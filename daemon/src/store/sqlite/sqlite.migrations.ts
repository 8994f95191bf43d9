import { CORRELATION_SQLITE_MIGRATION } from './correlation.sqlite.js';

/**
 * Numbered schema migrations of the embedded store. Append only: a released migration never changes.
 * Each runs in one transaction together with its record in `schema_migrations`.
 */
export interface SqliteMigration {
  id: number;
  name: string;
  sql: string;
}

export const SQLITE_MIGRATIONS: readonly SqliteMigration[] = [
  {
    id: 1,
    name: 'events, hosts and agent API keys',
    sql: `
      CREATE TABLE hosts (
        id TEXT PRIMARY KEY,
        key TEXT NOT NULL UNIQUE,
        hostname TEXT NOT NULL,
        os_family TEXT NOT NULL,
        display_name TEXT,
        fqdn TEXT,
        ipv4 TEXT,
        ips TEXT NOT NULL DEFAULT '[]',
        os_version TEXT,
        timezone TEXT,
        agent_product TEXT NOT NULL,
        agent_version TEXT NOT NULL,
        agent_instance_ids TEXT NOT NULL DEFAULT '[]',
        first_seen_ms INTEGER NOT NULL,
        last_seen_ms INTEGER NOT NULL
      );
      CREATE TABLE events (
        seq INTEGER PRIMARY KEY,
        event_id TEXT NOT NULL UNIQUE,
        host_id TEXT NOT NULL,
        type TEXT NOT NULL,
        severity TEXT NOT NULL,
        occurred_ms INTEGER NOT NULL,
        received_ms INTEGER NOT NULL,
        actor_user TEXT,
        agent_version TEXT NOT NULL,
        doc TEXT NOT NULL
      );
      CREATE INDEX events_by_occurred ON events (occurred_ms);
      CREATE INDEX events_by_host ON events (host_id, occurred_ms);
      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        prefix TEXT NOT NULL,
        hash TEXT NOT NULL UNIQUE,
        label TEXT NOT NULL,
        created_ms INTEGER NOT NULL,
        last_used_ms INTEGER,
        revoked_ms INTEGER
      );
    `,
  },
  CORRELATION_SQLITE_MIGRATION,
];
