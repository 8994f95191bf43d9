import { afterAll, describe, expect, it } from 'vitest';
import { startFerretDb, type RunningFerretDb } from '../../scripts/ferretdb.js';
import { postEvent, startTestSac, type TestSac } from '../helpers/daemon.js';
import { buildEvent } from '../helpers/events.js';

interface Answer {
  event_id: string;
  status: number;
  retryAfter: string | null;
  at: number;
}

/** Agents posting events back to back until stopped; every answer is kept. */
function load(sac: TestSac, workers: number) {
  const answers: Answer[] = [];
  let running = true;
  const loops = Array.from({ length: workers }, async () => {
    while (running) {
      const event = buildEvent();
      try {
        const res = await postEvent(sac.url, sac.apiKey, event);
        answers.push({ event_id: event.event_id, status: res.status, retryAfter: res.headers.get('retry-after'), at: Date.now() });
      } catch {
        answers.push({ event_id: event.event_id, status: 0, retryAfter: null, at: Date.now() });
      }
      // An agent spools and retries after a failure: keep the outage's request rate modest.
      if (answers.at(-1)!.status !== 201) await new Promise((r) => setTimeout(r, 100));
    }
  });
  return {
    answers,
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

async function health(sac: TestSac): Promise<{ status: number; body: { status?: string } }> {
  const res = await fetch(`${sac.url}/health`);
  return { status: res.status, body: (await res.json()) as { status?: string } };
}

describe('store outage: MongoDB (FerretDB) stopped under load', () => {
  let ferret: RunningFerretDb | null = null;
  let sac: TestSac | null = null;
  afterAll(async () => {
    await sac?.close();
    await ferret?.stop();
  });

  it('answers 503 with Retry-After (never 500), reports degraded health, loses nothing acknowledged and recovers without a restart', async () => {
    ferret = await startFerretDb({ logLevel: 'error' });
    sac = await startTestSac('mongodb', { SAC_MONGODB_URI: ferret.uri, SAC_MONGODB_DB: 'sac_outage' });
    const traffic = load(sac, 4);
    await expect.poll(() => traffic.answers.filter((a) => a.status === 201).length, { timeout: 10_000 }).toBeGreaterThan(20);

    const { dir, port } = ferret;
    await ferret.stop({ keepData: true });
    const stoppedAt = Date.now();
    await expect.poll(() => traffic.answers.filter((a) => a.at > stoppedAt && a.status === 503).length, { timeout: 20_000 }).toBeGreaterThan(3);
    const degraded = await health(sac);
    expect(degraded.status).toBe(503);
    expect(degraded.body.status).toBe('degraded');

    ferret = await startFerretDb({ logLevel: 'error', dir, port });
    const backAt = Date.now();
    await expect.poll(() => traffic.answers.some((a) => a.at > backAt && a.status === 201), { timeout: 30_000, interval: 20 }).toBe(true);
    const recoveredAt = Math.min(...traffic.answers.filter((a) => a.at > backAt && a.status === 201).map((a) => a.at));
    const recoveryMs = recoveredAt - backAt;
    await traffic.stop();
    // eslint-disable-next-line no-console -- the issue asks for the recovery time to be printed
    console.log(`FerretDB outage: ingest recovered ${recoveryMs} ms after the store came back (no daemon restart)`);
    expect(recoveryMs).toBeLessThan(5000);
    expect((await health(sac)).status).toBe(200);

    const statuses = new Set(traffic.answers.map((a) => a.status));
    expect([...statuses].sort()).toEqual([201, 503]);
    expect(traffic.answers.filter((a) => a.status === 503).every((a) => a.retryAfter !== null && Number(a.retryAfter) > 0)).toBe(true);
    const acknowledged = traffic.answers.filter((a) => a.status === 201);
    const missing: string[] = [];
    for (const a of acknowledged) if (!(await sac.sac.store.events.byId(a.event_id))) missing.push(a.event_id);
    const when = (id: string) => {
      const a = traffic.answers.find((x) => x.event_id === id)!;
      return `${id} acknowledged ${a.at - stoppedAt} ms after the stop (back at ${backAt - stoppedAt} ms)`;
    };
    expect(missing.map(when)).toEqual([]);
  }, 120_000);
});
