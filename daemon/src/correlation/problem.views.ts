import type { ProblemView, StreamProblem } from '../../../shared/src/index.js';
import type { Problem } from '../store/index.js';

const iso = (ms: number) => new Date(ms).toISOString();
const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));

export function problemView(p: Problem): ProblemView {
  return {
    ...streamProblem(p),
    fingerprint: p.fingerprint,
    created_at: iso(p.created_ms),
    acknowledged_by: p.acknowledged_by,
    acknowledged_at: isoOrNull(p.acknowledged_ms),
    resolved_by: p.resolved_by,
    resolved_by_user: p.resolved_by_user,
    resolved_at: isoOrNull(p.resolved_ms),
    comments: p.comments.map((c) => ({ at: iso(c.at_ms), by: c.by, action: c.action, text: c.text })),
  };
}

/** The stream's summary of a problem. */
export function streamProblem(p: Problem): StreamProblem {
  return {
    id: p.id,
    host_id: p.host_id,
    hostname: p.hostname,
    type: p.type,
    rule: p.rule,
    severity: p.severity,
    title: p.title,
    status: p.status,
    count: p.count,
    first_seen: iso(p.first_seen_ms),
    last_seen: iso(p.last_seen_ms),
  };
}
