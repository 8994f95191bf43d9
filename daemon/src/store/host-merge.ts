import type { HostObservation } from './hosts.types.js';

const PLACEHOLDERS = new Set(['-', 'N/A', '']);

/** Agents send "-" or "N/A" instead of leaving a field out; those never overwrite a known value. */
export function meaningful(value: string | undefined): string | undefined {
  return value === undefined || PLACEHOLDERS.has(value) ? undefined : value;
}

/** Most agent instance ids and IPs kept per host (oldest dropped first). */
export const HOST_LIST_LIMIT = 32;

/** Appends `additions` to `list` without repeats, keeping the newest `HOST_LIST_LIMIT`. */
export function appendUnique(list: readonly string[], additions: readonly (string | undefined)[]): string[] {
  const out = [...list];
  for (const value of additions) {
    if (value === undefined || out.includes(value)) continue;
    out.push(value);
  }
  return out.slice(-HOST_LIST_LIMIT);
}

/** Folds a batch's observations of one host into the values to write: latest wins, bounds widen. */
export interface HostChange {
  key: string;
  hostname: string;
  os_family: HostObservation['os_family'];
  latest: Omit<HostObservation, 'key' | 'hostname' | 'os_family' | 'seen_ms'>;
  ips: string[];
  agent_instance_ids: string[];
  first_seen_ms: number;
  last_seen_ms: number;
}

/** Groups observations by host key; within a group the most recently seen observation wins. */
export function foldObservations(observations: readonly HostObservation[]): Map<string, HostChange> {
  const changes = new Map<string, HostChange>();
  for (const obs of observations) {
    const ipv4 = meaningful(obs.ipv4);
    let change = changes.get(obs.key);
    if (!change) {
      change = {
        key: obs.key,
        hostname: obs.hostname,
        os_family: obs.os_family,
        latest: { agent_product: obs.agent_product, agent_version: obs.agent_version },
        ips: [],
        agent_instance_ids: [],
        first_seen_ms: obs.seen_ms,
        last_seen_ms: obs.seen_ms,
      };
      changes.set(obs.key, change);
    }
    if (obs.seen_ms >= change.last_seen_ms) {
      change.hostname = obs.hostname;
      change.latest = {
        ...change.latest,
        agent_product: obs.agent_product,
        agent_version: obs.agent_version,
        ...defined({
          display_name: meaningful(obs.display_name),
          fqdn: meaningful(obs.fqdn),
          ipv4,
          os_version: meaningful(obs.os_version),
          timezone: meaningful(obs.timezone),
          agent_instance_id: meaningful(obs.agent_instance_id),
          observed_ip: obs.observed_ip,
        }),
      };
    }
    change.first_seen_ms = Math.min(change.first_seen_ms, obs.seen_ms);
    change.last_seen_ms = Math.max(change.last_seen_ms, obs.seen_ms);
    change.ips = appendUnique(change.ips, [ipv4]);
    change.agent_instance_ids = appendUnique(change.agent_instance_ids, [meaningful(obs.agent_instance_id)]);
  }
  return changes;
}

function defined<T extends Record<string, string | undefined>>(values: T): Partial<Record<keyof T, string>> {
  const out: Partial<Record<keyof T, string>> = {};
  for (const [k, v] of Object.entries(values)) if (v !== undefined) out[k as keyof T] = v;
  return out;
}

/**
 * Host `last_seen` is kept to this resolution. Ingest touches a host in nearly every group commit;
 * rewriting its row when nothing but `last_seen` moved by less than this was a large share of
 * the commit's cost at peak ingest, and nothing reads `last_seen` more finely (silence is minutes).
 */
export const LAST_SEEN_RESOLUTION_MS = 5000;

/** True when the merged host row differs from the stored one enough to be written. */
export function hostNeedsWrite<T extends { last_seen_ms: number }>(
  stored: T,
  merged: Partial<T> & { last_seen_ms: number },
  resolutionMs = LAST_SEEN_RESOLUTION_MS,
): boolean {
  for (const key of Object.keys(merged) as (keyof T)[]) {
    if (key !== 'last_seen_ms' && merged[key] !== stored[key]) return true;
  }
  return merged.last_seen_ms - stored.last_seen_ms >= resolutionMs;
}
