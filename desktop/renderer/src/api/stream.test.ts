import { describe, expect, it } from 'vitest';
import type { StreamMessage } from '../../../../shared/src/stream.types';
import { defaultBackoff, StreamClient, type EventSourceLike, type StreamStatus } from './stream';

class FakeSource implements EventSourceLike {
  onopen: ((ev: Event) => void) | null = null;
  onerror: ((ev: Event) => void) | null = null;
  closed = false;
  listeners = new Map<string, (ev: MessageEvent) => void>();
  constructor(readonly url: string) {}
  addEventListener(type: string, l: (ev: MessageEvent) => void) {
    this.listeners.set(type, l);
  }
  close() {
    this.closed = true;
  }
  emit(type: string, data: unknown, id = '') {
    this.listeners.get(type)?.({ data: JSON.stringify(data), lastEventId: id } as MessageEvent);
  }
}

function harness(ticketFails = 0) {
  const sources: FakeSource[] = [];
  const statuses: StreamStatus[] = [];
  const messages: StreamMessage[] = [];
  const timers: { fn: () => void; ms: number }[] = [];
  let tickets = 0;
  let failures = ticketFails;
  const client = new StreamClient({
    ticket: async () => {
      if (failures-- > 0) throw new Error('offline');
      return `t${++tickets}`;
    },
    url: (ticket, last) => `/stream?ticket=${ticket}${last ? `&last_event_id=${last}` : ''}`,
    onMessage: (m) => messages.push(m),
    onStatus: (s) => statuses.push(s),
    open: (url) => {
      const s = new FakeSource(url);
      sources.push(s);
      return s;
    },
    setTimer: (fn, ms) => timers.push({ fn, ms }),
    clearTimer: () => undefined,
  });
  const flush = () => new Promise((r) => setTimeout(r, 0));
  return { client, sources, statuses, messages, timers, flush };
}

describe('StreamClient', () => {
  it('opens the stream with a fresh ticket and hands on typed messages', async () => {
    const h = harness();
    h.client.start();
    await h.flush();
    expect(h.sources[0].url).toBe('/stream?ticket=t1');
    h.sources[0].onopen?.(new Event('open'));
    h.sources[0].emit('counters', { events_total: 3 }, '5');
    h.sources[0].emit('event.ingested', { event_id: 'e1' }, '6');
    expect(h.messages).toEqual([
      { type: 'counters', data: { events_total: 3 } },
      { type: 'event.ingested', data: { event_id: 'e1' } },
    ]);
    expect(h.statuses).toEqual(['connecting', 'live']);
  });

  it('on error closes, waits, and reconnects with a new ticket and the last message id', async () => {
    const h = harness();
    h.client.start();
    await h.flush();
    h.sources[0].emit('problem.opened', { id: 'p1' }, '41');
    h.sources[0].onerror?.(new Event('error'));
    expect(h.sources[0].closed).toBe(true);
    expect(h.statuses.at(-1)).toBe('reconnecting');
    expect(h.timers).toHaveLength(1);
    expect(h.timers[0].ms).toBe(1000);
    h.timers[0].fn();
    await h.flush();
    expect(h.sources[1].url).toBe('/stream?ticket=t2&last_event_id=41');
  });

  it('backs off while tickets cannot be had, and stop() ends everything', async () => {
    const h = harness(2);
    h.client.start();
    await h.flush();
    expect(h.sources).toHaveLength(0);
    h.timers[0].fn();
    await h.flush();
    expect(h.timers.map((t) => t.ms)).toEqual([1000, 2000]);
    h.timers[1].fn();
    await h.flush();
    expect(h.sources).toHaveLength(1);
    h.client.stop();
    expect(h.sources[0].closed).toBe(true);
    expect(h.statuses.at(-1)).toBe('idle');
    expect(defaultBackoff(10)).toBe(30_000);
  });

  it('ignores a malformed message instead of failing the stream', async () => {
    const h = harness();
    h.client.start();
    await h.flush();
    h.sources[0].listeners.get('counters')?.({ data: '{oops', lastEventId: '' } as MessageEvent);
    expect(h.messages).toEqual([]);
  });
});
