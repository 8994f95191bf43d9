import type { EventView } from '../../../shared/src/index.js';
import type { StoredEvent } from '../store/index.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** A stored event as the read API shows it; `flagged` holds the ids marked as an RD Gateway flap. */
export function eventView(e: StoredEvent, flagged: ReadonlySet<string>): EventView {
  return {
    event_id: e.event_id,
    host_id: e.host_id,
    hostname: e.event.host.hostname,
    type: e.type,
    category: e.event.category,
    severity: e.severity,
    original_severity: e.severity === e.event.severity ? null : e.event.severity,
    title: e.event.title,
    summary: e.event.summary ?? null,
    occurred_at: e.occurred_at,
    received_at: iso(e.received_ms),
    actor_user: e.actor_user,
    agent_product: e.event.source.product,
    agent_version: e.agent_version,
    rdg_flap: flagged.has(e.event_id),
    source_geo: e.source_geo,
    details: e.event.details ?? {},
  };
}
