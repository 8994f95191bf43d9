import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';
import type { StreamCounters, StreamEvent, StreamMessage, StreamMessageType } from '../../../../../shared/src/stream.types';
import { StreamClient, type StreamStatus } from '../../api/stream';
import { platform } from '../../platform';
import { liveApi } from './live.api';

type Listener = (message: StreamMessage) => void;
const RECENT_MAX = 50;

/** The problem severities that raise an OS / browser notification. */
export const NOTIFY_SEVERITIES = new Set(['high', 'critical']);

/**
 * The live stream for the whole app: connection status, running counters, the latest events, and
 * a subscription point for views that refresh when something they show changes.
 */
export const useLiveStore = defineStore('live', () => {
  const status = ref<StreamStatus>('idle');
  const counters = shallowRef<StreamCounters | null>(null);
  const recent = ref<StreamEvent[]>([]);
  /** Events received since the stream started (for "n new" hints). */
  const received = ref(0);
  const notificationsEnabled = ref(false);
  const listeners = new Map<StreamMessageType, Set<Listener>>();

  const client = new StreamClient({
    ticket: liveApi.ticket,
    url: liveApi.eventsUrl,
    onStatus: (s) => (status.value = s),
    onMessage: (m) => dispatch(m),
  });

  function dispatch(message: StreamMessage) {
    if (message.type === 'counters') counters.value = message.data;
    if (message.type === 'event.ingested') {
      received.value += 1;
      recent.value = [message.data, ...recent.value].slice(0, RECENT_MAX);
    }
    if (message.type === 'problem.opened' && notificationsEnabled.value && NOTIFY_SEVERITIES.has(message.data.severity)) {
      void platform.notifications.show({
        title: `[${message.data.severity.toUpperCase()}] ${message.data.hostname}`,
        body: message.data.title,
        tag: `problem-${message.data.id}`,
      });
    }
    for (const l of listeners.get(message.type) ?? []) l(message);
  }

  /** Calls `listener` for each message of the given types until the returned function is called. */
  function subscribe(types: StreamMessageType[], listener: Listener): () => void {
    for (const t of types) {
      if (!listeners.has(t)) listeners.set(t, new Set());
      listeners.get(t)!.add(listener);
    }
    return () => types.forEach((t) => listeners.get(t)?.delete(listener));
  }

  async function enableNotifications() {
    notificationsEnabled.value = await platform.notifications.enable();
  }

  const start = () => {
    client.start();
    // Notifications the user allowed before (or native ones) are on without asking again.
    void platform.notifications.permitted().then((ok) => (notificationsEnabled.value ||= ok));
  };
  const stop = () => {
    client.stop();
    recent.value = [];
    received.value = 0;
    counters.value = null;
  };

  return { status, counters, recent, received, notificationsEnabled, subscribe, start, stop, enableNotifications, dispatch };
});
