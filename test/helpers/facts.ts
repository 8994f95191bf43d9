import { parseEvent } from '../../shared/src/index.js';
import { actorUser, hostObservation } from '../../daemon/src/ingest/ingest.rules.js';
import type { CommittedEvent, Problem } from '../../daemon/src/store/index.js';
import { buildEvent } from './events.js';

/** A stored event as ingest commits it (what `events.committed` facts carry), built like `buildEvent`. */
export function buildCommittedEvent(overrides: Parameters<typeof buildEvent>[0] = {}, stored: { host_id?: string; received_ms?: number } = {}): CommittedEvent {
  const parsed = parseEvent(buildEvent(overrides));
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  const event = parsed.event;
  const received = stored.received_ms ?? Date.parse(event.occurred_at);
  return {
    event,
    host: hostObservation(event, received),
    occurred_ms: Date.parse(event.occurred_at),
    received_ms: received,
    actor_user: actorUser(event),
    agent_version: event.source.product_version,
    host_id: stored.host_id ?? 'h1',
  };
}

const T = Date.parse('2026-06-02T23:14:27.512Z');

/** A problem record (what problem facts carry): an open severity problem on RDS01 unless overridden. */
export function buildProblem(overrides: Partial<Problem> = {}): Problem {
  return {
    id: 'p1',
    key: 'h1|rdp.login.failed|severity',
    fingerprint: 'fp1',
    host_id: 'h1',
    hostname: 'RDS01',
    type: 'rdp.login.failed',
    rule: 'severity',
    severity: 'high',
    title: 'failed sign-ins on RDS01',
    status: 'open',
    first_seen_ms: T,
    last_seen_ms: T,
    count: 1,
    created_ms: T,
    updated_ms: T,
    acknowledged_by: null,
    acknowledged_ms: null,
    resolved_by: null,
    resolved_by_user: null,
    resolved_ms: null,
    assignee_id: null,
    assignee: null,
    assigned_ms: null,
    comments: [],
    ...overrides,
  };
}
