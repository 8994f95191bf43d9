import type { Db } from 'mongodb';
import type { MongoMigration } from './mongo-migration.js';
import { SOURCE_FAILURES_MONGO_MIGRATION } from './source-failures.mongo.js';
import { PROBLEM_EVIDENCE_MONGO_MIGRATION } from './problems.mongo.js';
import { LOGIN_BASELINES_MONGO_MIGRATION, USER_LOGINS_MONGO_MIGRATION } from './login-intel.mongo.js';
import { GROUPS_MONGO_MIGRATION, USER_HOST_GROUPS_MONGO_MIGRATION } from './groups.mongo.js';
import { APPROVALS_MONGO_MIGRATION } from './approvals.mongo.js';
import { ROLLOUTS_MONGO_MIGRATION } from './rollouts.mongo.js';
import { SUGGEST_VALUES_MONGO_MIGRATION } from './suggest-values.mongo.js';
import { BANS_MONGO_MIGRATION } from './bans.mongo.js';
import { AGENT_VERSIONS_MONGO_MIGRATION } from './agent-versions.mongo.js';
import { AGENT_UPDATES_MONGO_MIGRATION } from './agent-updates.mongo.js';
import { COMMANDS_MONGO_MIGRATION } from './commands.mongo.js';
import { DEVICES_MONGO_MIGRATION } from './devices.mongo.js';
import { FEED_MONGO_MIGRATION } from './feed.mongo.js';
import { EVENTS_GEO_MONGO_MIGRATION, EVENTS_MINUTE_MONGO_MIGRATION } from './events.mongo.js';
import { INGEST_COLLECTIONS_MONGO_MIGRATION } from './locks.mongo.js';
import { EVENT_LOOKUPS_MONGO_MIGRATION } from './detail-lookups.mongo.js';
import { LOGIN_FAILURES_MONGO_MIGRATION, USERS_LAST_LOGIN_MONGO_MIGRATION } from './auth.mongo.js';
import { PROBLEM_ASSIGNEE_MONGO_MIGRATION } from './problem-assignee.mongo.js';
import { API_KEY_AGENTS_MONGO_MIGRATION } from './api-keys.mongo.js';


/** Applied in id order, whatever the order here. */
/** Migration 3: indexes of problems, timelines, fingerprints, flaps, rollups. */
const CORRELATION_MONGO_MIGRATION = {
  id: 3,
  name: 'problems, timelines, replay fingerprints, gateway flaps, host state, rollups, job leases',
  async up(db: Db) {
    // Event lists sort by occurred time with the event id as tie-break; without the compound index
    // MongoDB would sort every matching event in memory before taking a page.
    await db.collection('events').createIndexes([{ key: { occurred_ms: -1, event_id: -1 }, name: 'by_occurred_event' }]);
    await db.collection('problems').createIndexes([
      { key: { id: 1 }, name: 'id_unique', unique: true },
      { key: { key: 1, status: 1 }, name: 'by_key' },
      { key: { last_seen_ms: -1, id: -1 }, name: 'by_last_seen' },
      { key: { status: 1 }, name: 'by_status' },
      { key: { host_id: 1 }, name: 'by_host' },
      { key: { created_ms: -1 }, name: 'by_created' },
      { key: { resolved_ms: -1 }, name: 'by_resolved' },
    ]);
    await db.collection('problem_events').createIndexes([
      { key: { problem_id: 1, event_id: 1 }, name: 'link_unique', unique: true },
      { key: { problem_id: 1, occurred_ms: -1 }, name: 'by_time' },
    ]);
    await db.collection('event_fingerprints').createIndexes([{ key: { host_id: 1 }, name: 'by_host' }]);
    await db.collection('rdg_flaps').createIndexes([
      { key: { opened_event_id: 1 }, name: 'by_opened' },
      { key: { host_id: 1 }, name: 'by_host' },
    ]);
    await db.collection('rollups').createIndexes([{ key: { bucket_ms: 1 }, name: 'by_bucket' }]);
  },
};

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
  {
    id: 4,
    name: 'notification outbox, push subscriptions, daily reports',
    async up(db) {
      await db.collection('outbox').createIndexes([
        { key: { id: 1 }, name: 'id_unique', unique: true },
        { key: { channel: 1, status: 1, next_attempt_ms: 1 }, name: 'due' },
        { key: { created_ms: -1 }, name: 'by_created' },
        { key: { ref: 1, topic: 1 }, name: 'by_ref' },
      ]);
      await db.collection('push_subscriptions').createIndexes([
        { key: { id: 1 }, name: 'id_unique', unique: true },
        { key: { endpoint: 1 }, name: 'endpoint_unique', unique: true },
      ]);
      await db.collection('reports').createIndexes([
        { key: { id: 1 }, name: 'id_unique', unique: true },
        { key: { created_ms: -1 }, name: 'by_created' },
      ]);
      await db.collection('report_days').createIndexes([{ key: { day: 1 }, name: 'day_unique', unique: true }]);
      await db.collection('events').createIndexes([{ key: { type: 1, received_ms: 1 }, name: 'by_type_received' }]);
    },
  },
  CORRELATION_MONGO_MIGRATION,
  COMMANDS_MONGO_MIGRATION,
  DEVICES_MONGO_MIGRATION,
  FEED_MONGO_MIGRATION,
  EVENTS_MINUTE_MONGO_MIGRATION,
  INGEST_COLLECTIONS_MONGO_MIGRATION,
  EVENT_LOOKUPS_MONGO_MIGRATION,
  {
    id: 2,
    name: 'console users, settings, audit log, sign-in throttle, stream tickets',
    async up(db) {
      await db.collection('users').createIndexes([
        { key: { id: 1 }, name: 'id_unique', unique: true },
        { key: { username_key: 1 }, name: 'username_key_unique', unique: true },
      ]);
      await db.collection('settings').createIndexes([{ key: { key: 1 }, name: 'key_unique', unique: true }]);
      await db.collection('audit_log').createIndexes([
        { key: { at_ms: -1 }, name: 'by_time' },
        { key: { action: 1, at_ms: -1 }, name: 'by_action' },
      ]);
      await db.collection('login_throttle').createIndexes([{ key: { key: 1 }, name: 'key_unique', unique: true }]);
      await db.collection('stream_tickets').createIndexes([
        { key: { hash: 1 }, name: 'hash_unique', unique: true },
        { key: { expires_ms: 1 }, name: 'by_expiry' },
      ]);
    },
  },
  {
    id: 12,
    name: 'sign-in locks decided by a unique index',
    async up(db) {
      await db.collection('login_locks').createIndexes([{ key: { key: 1 }, name: 'key_unique', unique: true }]);
    },
  },
  AGENT_VERSIONS_MONGO_MIGRATION,
  AGENT_UPDATES_MONGO_MIGRATION,
  USERS_LAST_LOGIN_MONGO_MIGRATION,
  PROBLEM_ASSIGNEE_MONGO_MIGRATION,
  {
    id: 28,
    name: 'maintenance windows, escalation steps, Telegram links, TOTP second factor',
    async up(db) {
      await db.collection('maintenance_windows').createIndexes([
        { key: { id: 1 }, name: 'id_unique', unique: true },
        { key: { ends_ms: 1 }, name: 'by_end' },
      ]);
      await db.collection('escalation_steps').createIndexes([{ key: { problem_id: 1 }, name: 'by_problem' }]);
      await db.collection('telegram_links').createIndexes([
        { key: { user_id: 1 }, name: 'user_unique', unique: true },
        { key: { telegram_user_id: 1 }, name: 'telegram_user_unique', unique: true },
      ]);
      await db.collection('telegram_link_codes').createIndexes([{ key: { hash: 1 }, name: 'hash_unique', unique: true }]);
      await db.collection('user_totp').createIndexes([{ key: { user_id: 1 }, name: 'user_unique', unique: true }]);
    },
  },
  {
    id: 17,
    name: 'hosts: latest agent instance id, SSH administrator access probe result',
    async up(db) {
      const hosts = db.collection<{ id: string; agent_instance_ids?: string[] }>('hosts');
      // One update per host (hosts are few): FerretDB has no update pipelines to take the list's last element.
      for await (const host of hosts.find({ agent_instance_id: { $exists: false } }, { projection: { id: 1, agent_instance_ids: 1 } })) {
        await hosts.updateOne(
          { id: host.id, agent_instance_id: { $exists: false } },
          { $set: { agent_instance_id: host.agent_instance_ids?.at(-1) ?? null } },
        );
      }
      await hosts.updateMany({ ssh_admin_ok: { $exists: false } }, { $set: { ssh_admin_ok: null, ssh_admin_checked_at: null } });
      await hosts.createIndexes([{ key: { agent_instance_id: 1, last_seen_ms: -1 }, name: 'by_agent_instance' }]);
    },
  },
  {
    id: 20,
    name: 'console sessions: server-side sign-out and an absolute lifetime',
    async up(db) {
      await db.collection('sessions').createIndexes([
        { key: { id: 1 }, name: 'id_unique', unique: true },
        { key: { user_id: 1 }, name: 'by_user' },
        { key: { expires_ms: 1 }, name: 'by_expiry' },
      ]);
    },
  },
  {
    id: 45,
    name: 'hosts: observed agent address, pinned action address and WinRM name',
    async up(db) {
      const hosts = db.collection('hosts');
      for (const field of ['observed_ip', 'pinned_address', 'pinned_winrm_name']) {
        await hosts.updateMany({ [field]: { $exists: false } }, { $set: { [field]: null } });
      }
    },
  },
  API_KEY_AGENTS_MONGO_MIGRATION,
  LOGIN_FAILURES_MONGO_MIGRATION,
  EVENTS_GEO_MONGO_MIGRATION,
  SOURCE_FAILURES_MONGO_MIGRATION,
  PROBLEM_EVIDENCE_MONGO_MIGRATION,
  LOGIN_BASELINES_MONGO_MIGRATION,
  USER_LOGINS_MONGO_MIGRATION,
  GROUPS_MONGO_MIGRATION,
  USER_HOST_GROUPS_MONGO_MIGRATION,
  BANS_MONGO_MIGRATION,
  SUGGEST_VALUES_MONGO_MIGRATION,
  APPROVALS_MONGO_MIGRATION,
  ROLLOUTS_MONGO_MIGRATION,
];
