import type { SqliteMigration } from './sqlite-migration.js';
import { EVENTS_GEO_SQLITE_MIGRATION } from './event-row.sqlite.js';
import { SOURCE_FAILURES_SQLITE_MIGRATION } from './source-failures.sqlite.js';
import { PROBLEM_EVIDENCE_SQLITE_MIGRATION } from './problems.sqlite.js';
import { LOGIN_BASELINES_SQLITE_MIGRATION, USER_LOGINS_SQLITE_MIGRATION } from './login-intel.sqlite.js';
import { GROUPS_SQLITE_MIGRATION, USER_HOST_GROUPS_SQLITE_MIGRATION } from './groups.sqlite.js';
import { APPROVALS_SQLITE_MIGRATION } from './approvals.sqlite.js';
import { ROLLOUTS_SQLITE_MIGRATION } from './rollouts.sqlite.js';
import { SUGGEST_VALUES_SQLITE_MIGRATION } from './suggest-values.sqlite.js';
import { BANS_SQLITE_MIGRATION } from './bans.sqlite.js';
import { AGENT_VERSIONS_REASON_SQLITE_MIGRATION, AGENT_VERSIONS_SQLITE_MIGRATION } from './agent-versions.sqlite.js';
import { LEASE_TOKENS_SQLITE_MIGRATION } from './leases.sqlite.js';
import { AGENT_UPDATES_SQLITE_MIGRATION } from './agent-updates.sqlite.js';
import { COMMANDS_SQLITE_MIGRATION } from './commands.sqlite.js';
import { DEVICES_SQLITE_MIGRATION } from './devices.sqlite.js';
import { USERS_LAST_LOGIN_SQLITE_MIGRATION } from './auth.sqlite.js';
import { PROBLEM_ASSIGNEE_SQLITE_MIGRATION } from './problem-assignee.sqlite.js';
import { API_KEY_AGENTS_SQLITE_MIGRATION } from './api-keys.sqlite.js';

/** Migration 3: problems and their timelines, replay fingerprints, flap marks, host state, rollups, leases. */
const CORRELATION_SQLITE_MIGRATION = {
  id: 3,
  name: 'problems, timelines, replay fingerprints, gateway flaps, host state, rollups, job leases',
  sql: `
    CREATE TABLE problems (
      id TEXT PRIMARY KEY,
      key TEXT NOT NULL,
      fingerprint TEXT NOT NULL,
      host_id TEXT NOT NULL,
      hostname TEXT NOT NULL,
      type TEXT NOT NULL,
      rule TEXT NOT NULL,
      severity TEXT NOT NULL,
      severity_rank INTEGER NOT NULL,
      title TEXT NOT NULL,
      status TEXT NOT NULL,
      first_seen_ms INTEGER NOT NULL,
      last_seen_ms INTEGER NOT NULL,
      count INTEGER NOT NULL,
      created_ms INTEGER NOT NULL,
      updated_ms INTEGER NOT NULL,
      acknowledged_by TEXT,
      acknowledged_ms INTEGER,
      resolved_by TEXT,
      resolved_by_user TEXT,
      resolved_ms INTEGER,
      comments TEXT NOT NULL DEFAULT '[]'
    );
    CREATE INDEX problems_by_key ON problems (key, status);
    CREATE INDEX problems_by_status ON problems (status, last_seen_ms);
    CREATE INDEX problems_by_last_seen ON problems (last_seen_ms, id);
    CREATE INDEX problems_by_host ON problems (host_id, status);
    CREATE INDEX problems_by_created ON problems (created_ms);
    CREATE INDEX problems_by_resolved ON problems (resolved_ms);
    CREATE UNIQUE INDEX problems_one_silence_per_host ON problems (key) WHERE rule = 'host_silence';
    CREATE TABLE problem_events (
      problem_id TEXT NOT NULL,
      event_id TEXT NOT NULL,
      occurred_ms INTEGER NOT NULL,
      counted INTEGER NOT NULL,
      PRIMARY KEY (problem_id, event_id)
    ) WITHOUT ROWID;
    CREATE INDEX problem_events_by_time ON problem_events (problem_id, occurred_ms);
    CREATE TABLE event_fingerprints (
      fp TEXT PRIMARY KEY,
      host_id TEXT NOT NULL,
      event_id TEXT NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX event_fingerprints_by_host ON event_fingerprints (host_id);
    CREATE TABLE rdg_flaps (
      closed_event_id TEXT PRIMARY KEY,
      opened_event_id TEXT NOT NULL,
      host_id TEXT NOT NULL
    ) WITHOUT ROWID;
    CREATE INDEX rdg_flaps_by_opened ON rdg_flaps (opened_event_id);
    CREATE INDEX rdg_flaps_by_host ON rdg_flaps (host_id);
    CREATE TABLE host_state (
      host_id TEXT PRIMARY KEY,
      heartbeat_ms INTEGER,
      status TEXT,
      inventory TEXT,
      inventory_ms INTEGER,
      previous_inventory TEXT,
      previous_inventory_ms INTEGER
    );
    CREATE TABLE rollups (
      bucket_ms INTEGER NOT NULL,
      dim TEXT NOT NULL,
      key TEXT NOT NULL,
      severity TEXT NOT NULL,
      n INTEGER NOT NULL,
      PRIMARY KEY (bucket_ms, dim, key, severity)
    ) WITHOUT ROWID;
    CREATE TABLE leases (
      name TEXT PRIMARY KEY,
      owner TEXT NOT NULL,
      expires_ms INTEGER NOT NULL
    );
  `,
};

/**
 * Migration 15: cheaper correlation writes at ingest, same queries served.
 * - problem_events keyed (problem_id, occurred_ms, event_id): the key orders the timeline, so the
 *   second index goes (an event's occurred time is fixed, so the key stays unique per event).
 * - RD Gateway sessions opened and closed indexed on their own (partial indexes): the flap lookup
 *   reads a gateway host's counterparts without visiting its other events.
 */
const CORRELATION_INGEST_SQLITE_MIGRATION = {
  id: 15,
  name: 'cheaper correlation writes: problem timeline ordered by its key, gateway session indexes',
  sql: `
    CREATE TABLE problem_events_v15 (
      problem_id TEXT NOT NULL,
      occurred_ms INTEGER NOT NULL,
      event_id TEXT NOT NULL,
      counted INTEGER NOT NULL,
      PRIMARY KEY (problem_id, occurred_ms, event_id)
    ) WITHOUT ROWID;
    INSERT INTO problem_events_v15 (problem_id, occurred_ms, event_id, counted)
      SELECT problem_id, occurred_ms, event_id, counted FROM problem_events;
    DROP TABLE problem_events;
    ALTER TABLE problem_events_v15 RENAME TO problem_events;
    CREATE INDEX events_rdg_opened_by_host ON events (host_id, occurred_ms) WHERE type = 'rdg.connection.success';
    CREATE INDEX events_rdg_closed_by_host ON events (host_id, occurred_ms)
      WHERE type IN ('rdg.connection.disconnected', 'rdg.connection.failed');
  `,
};

/** Applied in id order, whatever the order here. */
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
  {
    id: 4,
    name: 'notification outbox, push subscriptions, daily reports',
    sql: `
      CREATE TABLE outbox (
        id TEXT PRIMARY KEY,
        topic TEXT NOT NULL,
        channel TEXT NOT NULL,
        target TEXT,
        ref TEXT,
        content TEXT NOT NULL,
        status TEXT NOT NULL,
        attempts INTEGER NOT NULL,
        max_attempts INTEGER NOT NULL,
        next_attempt_ms INTEGER NOT NULL,
        lease_until_ms INTEGER,
        created_ms INTEGER NOT NULL,
        updated_ms INTEGER NOT NULL,
        sent_ms INTEGER,
        last_error TEXT,
        history TEXT NOT NULL
      );
      CREATE INDEX outbox_due ON outbox (channel, status, next_attempt_ms);
      CREATE INDEX outbox_by_created ON outbox (created_ms);
      CREATE INDEX outbox_by_ref ON outbox (ref, topic);
      CREATE TABLE push_subscriptions (
        id TEXT PRIMARY KEY,
        endpoint TEXT NOT NULL UNIQUE,
        p256dh TEXT NOT NULL,
        auth TEXT NOT NULL,
        user_id TEXT,
        label TEXT,
        created_ms INTEGER NOT NULL
      );
      CREATE TABLE push_vapid (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        public_key TEXT NOT NULL,
        private_key TEXT NOT NULL
      );
      CREATE TABLE reports (
        id TEXT PRIMARY KEY,
        day TEXT NOT NULL,
        trigger TEXT NOT NULL,
        requested_by TEXT,
        created_ms INTEGER NOT NULL,
        period_from_ms INTEGER NOT NULL,
        period_to_ms INTEGER NOT NULL,
        summary TEXT NOT NULL,
        html TEXT NOT NULL
      );
      CREATE INDEX reports_by_created ON reports (created_ms);
      CREATE TABLE report_days (
        day TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        status TEXT NOT NULL,
        lease_until_ms INTEGER NOT NULL,
        report_id TEXT
      );
      CREATE INDEX events_by_type_received ON events (type, received_ms);
    `,
  },
  CORRELATION_SQLITE_MIGRATION,
  CORRELATION_INGEST_SQLITE_MIGRATION,
  COMMANDS_SQLITE_MIGRATION,
  DEVICES_SQLITE_MIGRATION,
  USERS_LAST_LOGIN_SQLITE_MIGRATION,
  {
    id: 2,
    name: 'console users, settings, audit log, sign-in throttle, stream tickets',
    sql: `
      CREATE TABLE users (
        id TEXT PRIMARY KEY,
        username TEXT NOT NULL,
        username_key TEXT NOT NULL UNIQUE,
        display_name TEXT,
        role TEXT NOT NULL,
        active INTEGER NOT NULL,
        password_hash TEXT NOT NULL,
        token_version INTEGER NOT NULL,
        created_ms INTEGER NOT NULL,
        updated_ms INTEGER NOT NULL
      );
      CREATE TABLE settings (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL,
        updated_ms INTEGER NOT NULL,
        updated_by TEXT
      );
      CREATE TABLE audit_log (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        at_ms INTEGER NOT NULL,
        actor_id TEXT,
        actor_username TEXT,
        ip TEXT,
        action TEXT NOT NULL,
        target TEXT,
        outcome TEXT NOT NULL,
        details TEXT NOT NULL
      );
      CREATE INDEX audit_by_time ON audit_log (at_ms);
      CREATE INDEX audit_by_action ON audit_log (action, at_ms);
      CREATE TABLE login_throttle (
        key TEXT PRIMARY KEY,
        failures TEXT NOT NULL,
        locked_until_ms INTEGER
      );
      CREATE TABLE stream_tickets (
        hash TEXT PRIMARY KEY,
        user_id TEXT NOT NULL,
        expires_ms INTEGER NOT NULL
      );
    `,
  },
  {
    id: 16,
    // Each B-tree an event touches costs a page write per commit at ingest.
    name: 'fewer index writes per event: fingerprints keyed by host, report-only index on received time',
    sql: `
      CREATE TABLE event_fingerprints_v16 (
        host_id TEXT NOT NULL,
        fp TEXT NOT NULL,
        event_id TEXT NOT NULL,
        PRIMARY KEY (host_id, fp)
      ) WITHOUT ROWID;
      INSERT INTO event_fingerprints_v16 (host_id, fp, event_id) SELECT host_id, fp, event_id FROM event_fingerprints;
      DROP TABLE event_fingerprints;
      ALTER TABLE event_fingerprints_v16 RENAME TO event_fingerprints;
      DROP INDEX events_by_type_received;
      CREATE INDEX events_reports_by_received ON events (received_ms) WHERE type IN ('report.daily.ssh', 'report.daily.rdp');
    `,
  },
  AGENT_VERSIONS_SQLITE_MIGRATION,
  LEASE_TOKENS_SQLITE_MIGRATION,
  AGENT_UPDATES_SQLITE_MIGRATION,
  PROBLEM_ASSIGNEE_SQLITE_MIGRATION,
  {
    id: 28,
    name: 'maintenance windows, escalation steps, Telegram links, TOTP second factor',
    sql: `
      CREATE TABLE maintenance_windows (
        id TEXT PRIMARY KEY,
        hosts TEXT NOT NULL,
        type_prefixes TEXT NOT NULL,
        rules TEXT NOT NULL,
        starts_ms INTEGER NOT NULL,
        ends_ms INTEGER,
        recurrence TEXT,
        reason TEXT NOT NULL,
        created_by TEXT,
        created_ms INTEGER NOT NULL,
        updated_ms INTEGER NOT NULL,
        ended_early_ms INTEGER
      );
      CREATE INDEX maintenance_by_end ON maintenance_windows (ends_ms);
      CREATE TABLE escalation_steps (
        problem_id TEXT NOT NULL,
        step INTEGER NOT NULL,
        at_ms INTEGER NOT NULL,
        PRIMARY KEY (problem_id, step)
      ) WITHOUT ROWID;
      CREATE TABLE telegram_links (
        user_id TEXT PRIMARY KEY,
        telegram_user_id TEXT NOT NULL UNIQUE,
        telegram_username TEXT,
        linked_ms INTEGER NOT NULL
      );
      CREATE TABLE telegram_link_codes (
        hash TEXT PRIMARY KEY,
        user_id TEXT NOT NULL,
        expires_ms INTEGER NOT NULL
      );
      CREATE TABLE user_totp (
        user_id TEXT PRIMARY KEY,
        secret TEXT NOT NULL,
        enabled INTEGER NOT NULL,
        last_step INTEGER NOT NULL,
        recovery_hashes TEXT NOT NULL,
        created_ms INTEGER NOT NULL,
        enabled_ms INTEGER
      );
    `,
  },
  {
    id: 17,
    name: 'hosts: latest agent instance id, SSH administrator access probe result',
    sql: `
      ALTER TABLE hosts ADD COLUMN agent_instance_id TEXT;
      ALTER TABLE hosts ADD COLUMN ssh_admin_ok INTEGER;
      ALTER TABLE hosts ADD COLUMN ssh_admin_checked_at INTEGER;
      -- The list is kept oldest first, so its last element is the latest instance seen.
      UPDATE hosts SET agent_instance_id = json_extract(agent_instance_ids, '$[#-1]');
      CREATE INDEX hosts_by_agent_instance ON hosts (agent_instance_id, last_seen_ms);
    `,
  },
  {
    id: 20,
    name: 'console sessions: server-side sign-out and an absolute lifetime',
    sql: `
      CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL,
        created_ms INTEGER NOT NULL,
        expires_ms INTEGER NOT NULL,
        revoked_ms INTEGER,
        ip TEXT
      );
      CREATE INDEX sessions_by_user ON sessions (user_id);
      CREATE INDEX sessions_by_expiry ON sessions (expires_ms);
    `,
  },
  {
    id: 21,
    name: 'stream tickets remember the session and when its token ends',
    sql: `
      ALTER TABLE stream_tickets ADD COLUMN session_id TEXT;
      ALTER TABLE stream_tickets ADD COLUMN ends_ms INTEGER;
    `,
  },
  {
    id: 22,
    name: 'agent API keys bound to a host or agent installation',
    sql: `
      ALTER TABLE api_keys ADD COLUMN bound_hostname TEXT;
      ALTER TABLE api_keys ADD COLUMN bound_instance_id TEXT;
      ALTER TABLE api_keys ADD COLUMN on_mismatch TEXT NOT NULL DEFAULT 'refuse';
    `,
  },
  {
    id: 23,
    // The free-text filter scanned every event's JSON through a JavaScript function on the main
    // thread. A trigram index answers substring queries of 3+ characters; contentless, so the text
    // is not stored twice, and kept in step with events by triggers on every connection.
    name: 'trigram full-text index of event titles and summaries',
    sql: `
      CREATE VIRTUAL TABLE events_fts USING fts5(title, summary, content='', contentless_delete=1, tokenize='trigram');
      INSERT INTO events_fts (rowid, title, summary)
        SELECT seq, json_extract(doc, '$.title'), coalesce(json_extract(doc, '$.summary'), '') FROM events;
      CREATE TRIGGER events_fts_insert AFTER INSERT ON events BEGIN
        INSERT INTO events_fts (rowid, title, summary)
          VALUES (new.seq, json_extract(new.doc, '$.title'), coalesce(json_extract(new.doc, '$.summary'), ''));
      END;
      CREATE TRIGGER events_fts_delete AFTER DELETE ON events BEGIN
        DELETE FROM events_fts WHERE rowid = old.seq;
      END;
    `,
  },
  {
    id: 43,
    // events.sqlite.ts writes the index row with the event, from the event it already holds.
    name: 'free-text index rows written by the event insert, not by a trigger',
    sql: `DROP TRIGGER events_fts_insert;`,
  },
  {
    id: 45,
    // Remote actions reach a host at an address SAC saw its agent use, or one an admin pinned —
    // never at one only the agent reported (issue 26).
    name: 'hosts: observed agent address, pinned action address and WinRM name',
    sql: `
      ALTER TABLE hosts ADD COLUMN observed_ip TEXT;
      ALTER TABLE hosts ADD COLUMN pinned_address TEXT;
      ALTER TABLE hosts ADD COLUMN pinned_winrm_name TEXT;
    `,
  },
  API_KEY_AGENTS_SQLITE_MIGRATION,
  AGENT_VERSIONS_REASON_SQLITE_MIGRATION,
  EVENTS_GEO_SQLITE_MIGRATION,
  SOURCE_FAILURES_SQLITE_MIGRATION,
  PROBLEM_EVIDENCE_SQLITE_MIGRATION,
  LOGIN_BASELINES_SQLITE_MIGRATION,
  USER_LOGINS_SQLITE_MIGRATION,
  GROUPS_SQLITE_MIGRATION,
  USER_HOST_GROUPS_SQLITE_MIGRATION,
  BANS_SQLITE_MIGRATION,
  SUGGEST_VALUES_SQLITE_MIGRATION,
  APPROVALS_SQLITE_MIGRATION,
  ROLLOUTS_SQLITE_MIGRATION,
];
