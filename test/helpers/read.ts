import { expect } from 'vitest';
import { api } from './auth.js';
import type { TestSac } from './daemon.js';

/** Every event id `GET /api/v1/events` lists, page by page. */
export async function allEventIds(t: Pick<TestSac, 'url'>, token: string): Promise<Set<string>> {
  const ids = new Set<string>();
  let cursor: string | null = null;
  do {
    const res = await api(t, 'GET', `/api/v1/events?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token });
    expect(res.status).toBe(200);
    for (const e of res.body.items as { event_id: string }[]) ids.add(e.event_id);
    cursor = res.body.next_cursor;
  } while (cursor);
  return ids;
}
