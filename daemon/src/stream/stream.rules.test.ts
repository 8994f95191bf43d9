import { describe, expect, it } from 'vitest';
import { spacingDelay, emptyCounters, foldCounters, replayFrom, sseFrame } from './stream.rules.js';

describe('stream rules', () => {
  it('frames a message as one SSE event with an id and a single data line', () => {
    const frame = sseFrame({ type: 'host.status_changed', data: { host_id: 'h', hostname: 'a\nb', status: 'stale' } }, 'b1.7').toString();
    expect(frame).toBe('id: b1.7\nevent: host.status_changed\ndata: {"host_id":"h","hostname":"a\\nb","status":"stale"}\n\n');
    expect(sseFrame({ type: 'counters', data: emptyCounters() }, null).toString()).toMatch(/^event: counters\n/);
  });

  it('counts ingested events by severity and opened problems only', () => {
    const c = emptyCounters();
    const event = { event_id: 'e', host_id: 'h', hostname: 'x', type: 't.x', severity: 'high' as const, title: 't', occurred_at: '', received_at: '', actor_user: null };
    expect(foldCounters(c, { type: 'event.ingested', data: event })).toBe(true);
    expect(foldCounters(c, { type: 'host.status_changed', data: { host_id: 'h', hostname: 'x', status: 'online' } })).toBe(false);
    expect(c).toEqual({ events_total: 1, by_severity: { info: 0, warning: 0, high: 1, critical: 0 }, problems_opened: 0 });
  });

  it.each([
    [null, 0, 0],
    [1000, 1100, 150],
    [1000, 1300, 0],
    [1000, 400, 250],
  ])('after last=%s at %s wait %s ms', (last, now, wait) => {
    expect(spacingDelay(last, now, 250)).toBe(wait);
  });

  it.each([
    [null, null],
    ['b1.5', 6],
    ['b1.1', 3],
    ['b1.9', null],
    ['b0.5', 3],
    ['junk', 3],
  ])('resuming after %s replays from seq %s (buffer 3..9)', (last, from) => {
    expect(replayFrom(last, 'b1', 3, 9)).toBe(from);
  });
});
