import { afterAll, describe, expect, it } from 'vitest';
import { startFerretDb, type RunningFerretDb } from '../../scripts/ferretdb.js';
import { adminToken, api } from '../helpers/auth.js';
import { startTestSac, type TestSac } from '../helpers/daemon.js';
import { health, load, missingAcknowledged, stablePort, type Answer } from '../helpers/outage.js';

describe('store outage: MongoDB (FerretDB) stopped under load', () => {
  let ferret: RunningFerretDb | null = null;
  let sac: TestSac | null = null;
  let agents: { stop(): Promise<void> } | null = null;
  let front: Awaited<ReturnType<typeof stablePort>> | null = null;
  afterAll(async () => {
    // A failed test leaves its agents posting: closing the daemon would wait for them for ever.
    await agents?.stop();
    await sac?.close();
    await front?.close();
    await ferret?.stop();
  });

  it('answers 503 with Retry-After (never 500), reports degraded health, loses nothing acknowledged and recovers without a restart', async ({ onTestFailed }) => {
    // The daemon's last log lines but the stored events, to tell a stalled ingest from a slow machine when this fails.
    // eslint-disable-next-line no-console -- printed only for a failure
    onTestFailed(() => console.log(sac?.logs.filter((l) => !/"msg":"event (created|duplicate)"/.test(l)).slice(-80).join('\n')));
    ferret = await startFerretDb({ logLevel: 'error' });
    // The daemon reaches FerretDB through a port that stays the same when FerretDB comes back on another.
    front = await stablePort(ferret.port);
    sac = await startTestSac('mongodb', { SAC_MONGODB_URI: `mongodb://127.0.0.1:${front.port}/`, SAC_MONGODB_DB: 'sac_outage' });
    const token = await adminToken(sac);
    const traffic = load(sac, 4);
    agents = traffic;
    // Ingest flowing before the fault: how fast depends on the machine's load, not on SAC (FerretDB
    // on a CPU shared with other work stored 18 in 10 s), so only the test's budget bounds it.
    await expect.poll(() => traffic.answers.filter((a) => a.status === 201).length, { timeout: 60_000 }).toBeGreaterThan(20);

    const { dir } = ferret;
    await ferret.stop({ keepData: true });
    const stoppedAt = Date.now();
    await expect.poll(() => traffic.answers.filter((a) => a.at > stoppedAt && a.status === 503).length, { timeout: 20_000 }).toBeGreaterThan(3);
    const degraded = await health(sac);
    expect(degraded.status).toBe(503);
    expect(degraded.body.status).toBe('degraded');
    // A console write fails as an outage too (503, retry), not as an internal error.
    const key = await api(sac, 'POST', '/api/v1/api-keys', { token, body: { label: 'during the outage' } });
    expect([key.status, key.body?.error?.code]).toEqual([503, 'store/unavailable']);
    const viaTrpc = await api(sac, 'POST', '/trpc/apiKeys.create', { token, body: { label: 'during the outage' } });
    expect([viaTrpc.status, viaTrpc.body?.error?.data?.appCode, Number(viaTrpc.headers.get('retry-after')) > 0]).toEqual([503, 'store/unavailable', true]);

    ferret = await startFerretDb({ logLevel: 'error', dir });
    front.target = ferret.port;
    const backAt = Date.now();
    await expect.poll(() => traffic.answers.some((a) => a.at > backAt && a.status === 201), { timeout: 30_000, interval: 20 }).toBe(true);
    const recoveredAt = Math.min(...traffic.answers.filter((a) => a.at > backAt && a.status === 201).map((a) => a.at));
    const recoveryMs = recoveredAt - backAt;
    await traffic.stop();
    // eslint-disable-next-line no-console -- the issue asks for the recovery time to be printed
    console.log(`FerretDB outage: ingest recovered ${recoveryMs} ms after the store came back (no daemon restart)`);
    // The fact is that it recovered (the poll above), on this daemon: how fast is the printed figure, not a bound.
    expect((await health(sac)).status).toBe(200);

    const statuses = new Set(traffic.answers.map((a) => a.status));
    expect([...statuses].sort()).toEqual([201, 503]);
    expect(traffic.answers.filter((a) => a.status === 503).every((a) => a.retryAfter !== null && Number(a.retryAfter) > 0)).toBe(true);
    const describeAnswer = (a: Answer) => `${a.event_id} acknowledged ${a.at - stoppedAt} ms after the stop (back at ${backAt - stoppedAt} ms)`;
    expect(await missingAcknowledged(sac, traffic.answers, describeAnswer)).toEqual([]);
  }, 120_000);
});
