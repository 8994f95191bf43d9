import { createEventFactory } from './event-factory.js';

/** Signs in through `POST /api/v1/auth/login` and returns the session token. */
export async function login(url: string, username: string, password: string): Promise<string> {
  const res = await fetch(`${url}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  const body = (await res.json()) as { token?: string };
  if (res.status !== 200 || !body.token) throw new Error(`login failed: ${res.status} ${JSON.stringify(body)}`);
  return body.token;
}

/** Latency percentile of `sorted` (ms). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Sends `count` events of the factory, `parallel` at a time; fails on any answer but 201. */
export async function ingestEvents(url: string, apiKey: string, count: number, parallel = 16): Promise<void> {
  const factory = createEventFactory();
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      const e = factory.next();
      const res = await fetch(`${url}/api/v1/events`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${apiKey}` },
        body: e.body,
      });
      await res.arrayBuffer();
      if (res.status !== 201) throw new Error(`ingest answered ${res.status}`);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
}
