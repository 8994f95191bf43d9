import type { StreamMessage } from '../../shared/src/index.js';

/** Domain events inside the daemon that are not stream messages (e.g. for the notifier or audit). */
export type InternalMessage =
  | {
      type: 'auth.login_locked';
      data: { username: string; ip: string | undefined; locked_until: string; attempts: number };
    }
  /** Something daemons cache changed here: the others on the same store drop their copies (cluster feed). */
  | {
      type: 'cluster.changed';
      data: { scope: 'settings'; category: string } | { scope: 'user'; user_id: string } | { scope: 'api_keys' };
    };

export type BusMessage = StreamMessage | InternalMessage;

/** How a message was published. */
export interface PublishMeta {
  /**
   * Its notifications are already in the outbox: ingest records the notifications of the
   * problems a batch opened or resolved in the batch's own commit, so the notifier leaves them.
   */
  notified: boolean;
}

type Listener = (message: BusMessage, meta: PublishMeta) => void;

/**
 * The in-process bus: ingest, problems and hosts publish; the SSE stream, the notifier and
 * the dashboard counters subscribe. Delivery is synchronous and a failing listener cannot
 * affect the publisher or other listeners.
 */
export class Bus {
  private readonly listeners = new Set<Listener>();

  constructor(private readonly onListenerError: (err: unknown, message: BusMessage) => void) {}

  publish(message: BusMessage, meta: PublishMeta = { notified: false }): void {
    for (const listener of this.listeners) {
      try {
        listener(message, meta);
      } catch (err) {
        this.onListenerError(err, message);
      }
    }
  }

  /** Returns the unsubscribe function. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
