import type { CommittedEvent, Problem } from './store/index.js';

/** What happened to a problem; `grown`: an existing problem counted more events (ingest). */
export type ProblemChange = 'opened' | 'grown' | 'acknowledged' | 'resolved' | 'reopened' | 'assigned';

/**
 * What the daemon did, as typed domain facts: the ingest pipeline returns them from each commit,
 * and the problems, hosts and auth features state theirs. Features react to them for themselves
 * (notify, agent updates, the live stream's presentation); none of them is shaped for a client.
 */
export type DomainFact =
  /** A batch's events stored by ingest, every type (hidden ones too), with the host each was linked to. */
  | { type: 'events.committed'; events: CommittedEvent[] }
  /** A problem record after the change (opened, grown and auto-resolved by ingest or the silence scan, the rest by operators). */
  | { type: `problem.${ProblemChange}`; problem: Problem }
  /** A host's liveness status changed (a heartbeat set it online, the silence scan stale). */
  | { type: 'host.status_changed'; host_id: string; hostname: string; status: 'online' | 'stale' }
  /** Console sign-in locked a user out after too many failures. */
  | { type: 'auth.login_locked'; username: string; ip: string | undefined; locked_until: string; attempts: number };

/**
 * Where facts were committed. Ingest records the notifications of its facts in its own commit
 * (outbox rows beside the events); facts committed by the other features are notified after.
 */
export type FactOrigin = 'ingest' | 'service';

/** A subscriber; a returned promise is waited for by `publish` (the stream's presentation). */
export type FactListener = (facts: readonly DomainFact[], origin: FactOrigin) => void | Promise<void>;

/**
 * The daemon's in-process channel of domain facts, one per daemon: reactions run on the daemon
 * that committed (other daemons on the same store see only what the cluster feed carries: the
 * stream's presented messages and cache changes). Listeners run in subscription order; a failing
 * listener cannot affect the publisher or the others.
 */
export class Facts {
  private readonly listeners = new Set<FactListener>();

  constructor(private readonly onListenerError: (err: unknown, fact: DomainFact['type']) => void) {}

  /** Resolves once the listeners that returned a promise have settled. Never rejects. */
  async publish(facts: readonly DomainFact[], origin: FactOrigin): Promise<void> {
    if (facts.length === 0) return;
    const waits: Promise<void>[] = [];
    for (const listener of this.listeners) {
      try {
        const result = listener(facts, origin);
        if (result) waits.push(result.catch((err: unknown) => this.onListenerError(err, facts[0].type)));
      } catch (err) {
        this.onListenerError(err, facts[0].type);
      }
    }
    if (waits.length > 0) await Promise.all(waits);
  }

  /** Returns the unsubscribe function. */
  subscribe(listener: FactListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
