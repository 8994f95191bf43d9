import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { Severity } from '../../../../shared/src/index.js';
import type { Host, HostObservation, HostsRepo } from '../hosts.types.js';
import { appendUnique, foldObservations, hostNeedsWrite } from '../host-merge.js';
import { hostTypeKey, ROLLUP_BUCKET_MS } from '../rollup-fold.js';
import { rollupAdder } from './rollups.sqlite.js';

type Db = Database.Database;

export interface HostRow {
  id: string;
  key: string;
  hostname: string;
  os_family: Host['os_family'];
  display_name: string | null;
  fqdn: string | null;
  ipv4: string | null;
  ips: string;
  os_version: string | null;
  timezone: string | null;
  agent_product: string;
  agent_version: string;
  agent_instance_id: string | null;
  agent_instance_ids: string;
  observed_ip: string | null;
  pinned_address: string | null;
  pinned_winrm_name: string | null;
  ssh_admin_ok: number | null;
  ssh_admin_checked_at: number | null;
  first_seen_ms: number;
  last_seen_ms: number;
}

export function hostFromRow(row: HostRow): Host {
  return {
    ...row,
    ips: JSON.parse(row.ips) as string[],
    agent_instance_ids: JSON.parse(row.agent_instance_ids) as string[],
    ssh_admin_ok: row.ssh_admin_ok === null ? null : row.ssh_admin_ok === 1,
  };
}

/**
 * Creates the hosts of a batch's observations (or recreates them after deletion) or widens their
 * fields; only observations at least as recent as the stored last-seen overwrite the descriptive
 * ones. Runs inside the caller's transaction; returns the id per host key.
 */
export function hostUpserter(db: Db): (observations: HostObservation[]) => Map<string, string> {
  const hostByKey = db.prepare<[string], HostRow>('SELECT * FROM hosts WHERE key = ?');
  const insertHost = db.prepare(`INSERT INTO hosts (id, key, hostname, os_family, display_name, fqdn, ipv4, ips,
      os_version, timezone, agent_product, agent_version, agent_instance_id, agent_instance_ids, observed_ip, first_seen_ms, last_seen_ms)
    VALUES (@id, @key, @hostname, @os_family, @display_name, @fqdn, @ipv4, @ips, @os_version, @timezone,
      @agent_product, @agent_version, @agent_instance_id, @agent_instance_ids, @observed_ip, @first_seen_ms, @last_seen_ms)`);
  const updateHost = db.prepare(`UPDATE hosts SET hostname = @hostname, display_name = @display_name, fqdn = @fqdn,
      ipv4 = @ipv4, ips = @ips, os_version = @os_version, timezone = @timezone, agent_product = @agent_product,
      agent_version = @agent_version, agent_instance_id = @agent_instance_id, agent_instance_ids = @agent_instance_ids,
      observed_ip = @observed_ip, first_seen_ms = @first_seen_ms,
      last_seen_ms = @last_seen_ms WHERE id = @id`);
  return (observations) => {
    const hostIds = new Map<string, string>();
    for (const change of foldObservations(observations).values()) {
      const existing = hostByKey.get(change.key);
      if (!existing) {
        const id = randomUUID();
        insertHost.run({
          id,
          key: change.key,
          hostname: change.hostname,
          os_family: change.os_family,
          display_name: change.latest.display_name ?? null,
          fqdn: change.latest.fqdn ?? null,
          ipv4: change.latest.ipv4 ?? null,
          ips: JSON.stringify(change.ips),
          os_version: change.latest.os_version ?? null,
          timezone: change.latest.timezone ?? null,
          agent_product: change.latest.agent_product,
          agent_version: change.latest.agent_version,
          agent_instance_id: change.latest.agent_instance_id ?? null,
          agent_instance_ids: JSON.stringify(change.agent_instance_ids),
          observed_ip: change.latest.observed_ip ?? null,
          first_seen_ms: change.first_seen_ms,
          last_seen_ms: change.last_seen_ms,
        });
        hostIds.set(change.key, id);
        continue;
      }
      const newer = change.last_seen_ms >= existing.last_seen_ms;
      const pick = <K extends keyof HostChangeLatest>(k: K) => (newer ? (change.latest[k] ?? existing[k]) : existing[k]);
      const next = {
        id: existing.id,
        hostname: newer ? change.hostname : existing.hostname,
        display_name: pick('display_name'),
        fqdn: pick('fqdn'),
        ipv4: pick('ipv4'),
        ips: JSON.stringify(appendUnique(JSON.parse(existing.ips) as string[], change.ips)),
        os_version: pick('os_version'),
        timezone: pick('timezone'),
        agent_product: pick('agent_product'),
        agent_version: pick('agent_version'),
        agent_instance_id: pick('agent_instance_id'),
        agent_instance_ids: JSON.stringify(
          appendUnique(JSON.parse(existing.agent_instance_ids) as string[], change.agent_instance_ids),
        ),
        observed_ip: pick('observed_ip'),
        first_seen_ms: Math.min(existing.first_seen_ms, change.first_seen_ms),
        last_seen_ms: Math.max(existing.last_seen_ms, change.last_seen_ms),
      };
      if (hostNeedsWrite(existing, next)) updateHost.run(next);
      hostIds.set(change.key, existing.id);
    }
    return hostIds;
  };
}

type HostChangeLatest = Pick<
  Host,
  'display_name' | 'fqdn' | 'ipv4' | 'os_version' | 'timezone' | 'agent_product' | 'agent_version' | 'agent_instance_id' | 'observed_ip'
>;

export function sqliteHosts(db: Db): HostsRepo {
  const addRollup = rollupAdder(db);
  const deleteAll = db.transaction((hostId: string) => {
    const gone = db.prepare('DELETE FROM hosts WHERE id = ?').run(hostId).changes === 1;
    // The dashboard's type counters lose this host's events; its host counters go altogether.
    const counted = db
      .prepare<[number, number, string], { bucket_ms: number; type: string; severity: Severity; n: number }>(
        `SELECT (occurred_ms / ?) * ? AS bucket_ms, type, severity, count(*) AS n FROM events WHERE host_id = ?
         GROUP BY 1, 2, 3`,
      )
      .all(ROLLUP_BUCKET_MS, ROLLUP_BUCKET_MS, hostId);
    for (const c of counted) addRollup({ bucket_ms: c.bucket_ms, dim: 'type', key: c.type, severity: c.severity, n: -c.n });
    db.prepare(`DELETE FROM rollups WHERE (dim = 'host' AND key = ?) OR (dim = 'host_type' AND substr(key, 1, ?) = ?)`).run(
      hostId,
      hostTypeKey(hostId, '').length,
      hostTypeKey(hostId, ''),
    );
    db.prepare('DELETE FROM events WHERE host_id = ?').run(hostId);
    db.prepare('DELETE FROM problem_events WHERE problem_id IN (SELECT id FROM problems WHERE host_id = ?)').run(hostId);
    db.prepare('DELETE FROM problem_evidence WHERE problem_id IN (SELECT id FROM problems WHERE host_id = ?)').run(hostId);
    db.prepare('DELETE FROM problems WHERE host_id = ?').run(hostId);
    db.prepare('DELETE FROM event_fingerprints WHERE host_id = ?').run(hostId);
    db.prepare('DELETE FROM rdg_flaps WHERE host_id = ?').run(hostId);
    db.prepare('DELETE FROM host_state WHERE host_id = ?').run(hostId);
    return gone;
  });
  return {
    async byId(id) {
      const row = db.prepare<[string], HostRow>('SELECT * FROM hosts WHERE id = ?').get(id);
      return row ? hostFromRow(row) : null;
    },
    async list() {
      return db.prepare<[], HostRow>('SELECT * FROM hosts ORDER BY key').all().map(hostFromRow);
    },
    async count() {
      return (db.prepare('SELECT count(*) AS n FROM hosts').get() as { n: number }).n;
    },
    async hostByAgentInstance(agentInstanceId) {
      const row = db
        .prepare<[string], HostRow>('SELECT * FROM hosts WHERE agent_instance_id = ? ORDER BY last_seen_ms DESC, id LIMIT 1')
        .get(agentInstanceId);
      return row ? hostFromRow(row) : null;
    },
    async setSshAdminOk(hostId, ok, atMs) {
      return (
        db.prepare('UPDATE hosts SET ssh_admin_ok = ?, ssh_admin_checked_at = ? WHERE id = ?').run(ok ? 1 : 0, atMs, hostId)
          .changes === 1
      );
    },
    async setPin(hostId, pin) {
      return (
        db.prepare('UPDATE hosts SET pinned_address = ?, pinned_winrm_name = ? WHERE id = ?').run(pin?.address ?? null, pin?.winrm_name ?? null, hostId)
          .changes === 1
      );
    },
    async delete(hostId) {
      return deleteAll.immediate(hostId);
    },
  };
}
