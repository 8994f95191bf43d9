import type { StreamMessage } from '../../shared/src/index.js';

/** Messages inside the daemon that are not stream messages. */
export type InternalMessage =
  /** Something daemons cache changed here: the others on the same store drop their copies (cluster feed). */
  {
    type: 'cluster.changed';
    data: { scope: 'settings'; category: string } | { scope: 'user'; user_id: string } | { scope: 'api_keys' };
  };

export type BusMessage = StreamMessage | InternalMessage;

type Listener = (message: BusMessage) => void;

/**
 * The in-process bus of what clients and the other daemons are told: the stream's presented
 * messages (stream/ turns domain facts into them; commands and agent updates publish their own)
 * and cache changes; the SSE hub and the cluster feed subscribe. Domain reactions subscribe to
 * the facts (facts.ts), not here. Delivery is synchronous and a failing listener cannot affect
 * the publisher or other listeners.
 */
export class Bus {
  private readonly listeners = new Set<Listener>();

  constructor(private readonly onListenerError: (err: unknown, message: BusMessage) => void) {}

  publish(message: BusMessage): void {
    for (const listener of this.listeners) {
      try {
        listener(message);
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
