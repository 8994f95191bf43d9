import { agentValue, type Event } from '../../../shared/src/index.js';
import type { HostObservation } from '../store/index.js';

/** The account an event is about: `details.user`, else `shadower_user`, else `username`. */
export function actorUser(event: Event): string | null {
  const d = event.details ?? {};
  for (const key of ['user', 'shadower_user', 'username']) {
    const v = agentValue(typeof d[key] === 'string' ? d[key].trim() : null);
    if (v !== null) return v.slice(0, 256);
  }
  return null;
}

/** Host identity: the lower-cased hostname plus the OS family. */
export function hostKey(event: Event): string {
  return `${event.host.hostname.toLowerCase()}|${event.host.os_family}`;
}

/**
 * What an event says about its host; `observedIp` is where SAC saw the request come from. A
 * flagged event (its key is bound to another host) changes neither the host's agent installation
 * (its commands would go to the key's) nor its observed address.
 */
export function hostObservation(event: Event, receivedMs: number, observedIp?: string, flagged = false): HostObservation {
  return {
    key: hostKey(event),
    hostname: event.host.hostname,
    os_family: event.host.os_family,
    display_name: event.host.display_name,
    fqdn: event.host.fqdn,
    ipv4: event.host.ipv4,
    os_version: event.host.os_version,
    timezone: event.host.timezone,
    agent_product: event.source.product,
    agent_version: event.source.product_version,
    agent_instance_id: flagged ? undefined : event.source.agent_instance_id,
    ...(observedIp && !flagged ? { observed_ip: observedIp } : {}),
    seen_ms: receivedMs,
  };
}
