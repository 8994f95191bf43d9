import type { StreamMessage } from '../../../shared/src/index.js';
import type { BusMessage } from '../bus.js';
import { effectiveSeverity, isHiddenType, streamProblem, type CorrelationSettings } from '../correlation/index.js';
import type { DomainFact, Facts } from '../facts.js';

/** What the stream's presentation reads from the settings: the same rules the lists apply. */
export type StreamPresentation = Pick<CorrelationSettings, 'hiddenTypes' | 'severityOverrides'>;

/**
 * How facts are shown to stream clients — the one place these rules apply: events of hidden
 * types are left out and severities are shown as overridden (what the lists show); a grown
 * problem is `problem.updated`; sign-in locks are not shown.
 */
export function presentFacts(facts: readonly DomainFact[], p: StreamPresentation): StreamMessage[] {
  const out: StreamMessage[] = [];
  for (const fact of facts) {
    switch (fact.type) {
      case 'events.committed':
        for (const c of fact.events) {
          if (isHiddenType(c.event.type, p.hiddenTypes)) continue;
          out.push({
            type: 'event.ingested',
            data: {
              event_id: c.event.event_id,
              host_id: c.host_id,
              hostname: c.event.host.hostname,
              type: c.event.type,
              severity: effectiveSeverity(c.event.type, c.event.severity, p.severityOverrides),
              title: c.event.title,
              occurred_at: c.event.occurred_at,
              received_at: new Date(c.received_ms).toISOString(),
              actor_user: c.actor_user,
            },
          });
        }
        break;
      case 'problem.grown':
        out.push({ type: 'problem.updated', data: streamProblem(fact.problem) });
        break;
      case 'problem.opened':
      case 'problem.acknowledged':
      case 'problem.resolved':
      case 'problem.reopened':
      case 'problem.assigned':
        out.push({ type: fact.type, data: streamProblem(fact.problem) });
        break;
      case 'host.status_changed':
        out.push({ type: 'host.status_changed', data: { host_id: fact.host_id, hostname: fact.hostname, status: fact.status } });
        break;
      case 'auth.login_locked':
        break;
    }
  }
  return out;
}

/**
 * The stream's reaction to facts: presents them with the current settings and publishes the
 * messages on the bus (the hub, and on a shared store the cluster feed, take them from there), in
 * the order the facts were published. `publish` of the facts waits for it, so a commit's messages
 * are out before its agents are answered. Returns the unsubscribe function.
 */
export function subscribeStream(
  facts: Pick<Facts, 'subscribe'>,
  bus: { publish(message: BusMessage): void },
  presentation: () => Promise<StreamPresentation>,
): () => void {
  let presented: Promise<void> = Promise.resolve();
  return facts.subscribe((batch) => {
    const run = presented.then(async () => {
      for (const message of presentFacts(batch, await presentation())) bus.publish(message);
    });
    presented = run.catch(() => undefined);
    return run;
  });
}
