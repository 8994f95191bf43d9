// @vitest-environment happy-dom
// @vitest-environment-options {"url": "http://127.0.0.1:8080/"}
import { createPinia, setActivePinia } from 'pinia';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { platform } from '../../platform';
import { useLiveStore } from './live.store';

const problem = (severity: 'warning' | 'high' | 'critical', id = 'p1') => ({
  type: 'problem.opened' as const,
  data: { id, host_id: 'h', hostname: 'RDS01', type: 'rdp.bruteforce.burst', rule: 'severity', severity, title: 'RDP bruteforce burst', status: 'open' as const, count: 1, first_seen: 'x', last_seen: 'x', assignee_id: null, assignee: null },
});

describe('live store', () => {
  beforeEach(() => setActivePinia(createPinia()));

  it('notifies natively for new high and critical problems only, once enabled', async () => {
    const show = vi.spyOn(platform.notifications, 'show').mockResolvedValue();
    vi.spyOn(platform.notifications, 'enable').mockResolvedValue(true);
    const live = useLiveStore();
    live.dispatch(problem('critical'));
    expect(show).not.toHaveBeenCalled();
    await live.enableNotifications();
    live.dispatch(problem('warning', 'p2'));
    live.dispatch(problem('high', 'p3'));
    expect(show.mock.calls).toEqual([[{ title: '[HIGH] RDS01', body: 'RDP bruteforce burst', tag: 'problem-p3' }]]);
  });

  it('keeps counters and the latest events, and calls subscribers of a type until they unsubscribe', () => {
    const live = useLiveStore();
    const seen: string[] = [];
    const off = live.subscribe(['event.ingested'], (m) => seen.push(m.type));
    const ev = { event_id: 'e', host_id: 'h', hostname: 'RDS01', type: 't.x', severity: 'info' as const, title: 'x', occurred_at: 'x', received_at: 'x', actor_user: null };
    live.dispatch({ type: 'event.ingested', data: ev });
    live.dispatch({ type: 'counters', data: { events_total: 9, by_severity: { info: 9, warning: 0, high: 0, critical: 0 }, problems_opened: 0 } });
    off();
    live.dispatch({ type: 'event.ingested', data: { ...ev, event_id: 'f' } });
    expect(seen).toEqual(['event.ingested']);
    expect(live.received).toBe(2);
    expect(live.recent.map((e) => e.event_id)).toEqual(['f', 'e']);
    expect(live.counters?.events_total).toBe(9);
  });
});
