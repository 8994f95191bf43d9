import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api } from '../helpers/auth.js';
import { postEvent, startTestSac, type TestSac } from '../helpers/daemon.js';
import { buildEvent } from '../helpers/events.js';
import { opsTool, runTool } from '../helpers/ops-tools.js';
import { openStream } from '../helpers/stream.js';
import { STORE_KINDS } from '../helpers/stores.js';

const METRICS_TOKEN = 'scrape-token-0123456789abcdef';

/** The value of one series (exact name and label set as printed), or undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe.each(STORE_KINDS)('/metrics on %s', (kind) => {
  let sac: TestSac;
  const scrape = async () => {
    const res = await fetch(`${sac.url}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(res.status).toBe(200);
    return res.text();
  };
  beforeAll(async () => {
    sac = await startTestSac(kind, { SAC_METRICS_TOKEN: METRICS_TOKEN });
  });
  afterAll(async () => {
    await sac?.close();
  });

  it('counts ingest outcomes, times batches and requests by route template, and reads store counts', async () => {
    const before = await scrape();
    expect(sample(before, 'sac_ingest_created_total')).toBe(0);
    expect(sample(before, 'sac_store_up')).toBe(1);

    const event = buildEvent({ type: 'rdp.login.failed', severity: 'high' });
    expect((await postEvent(sac.url, sac.apiKey, event)).status).toBe(201);
    expect((await postEvent(sac.url, sac.apiKey, event)).status).toBe(409);
    expect((await postEvent(sac.url, sac.apiKey, { ...buildEvent(), schema_version: '9.9' })).status).toBe(422);
    expect((await postEvent(sac.url, 'sac_wrong-key', buildEvent())).status).toBe(401);
    const token = await adminToken(sac);
    const hosts = await api(sac, 'GET', '/api/v1/hosts', { token });
    expect(hosts.status).toBe(200);
    const hostId = (hosts.body as { items: { id: string }[] }).items[0].id;
    expect((await api(sac, 'GET', `/api/v1/hosts/${hostId}`, { token })).status).toBe(200);
    expect((await api(sac, 'GET', '/trpc/system.info')).status).toBe(200);
    expect((await api(sac, 'GET', `/api/v1/no-such-route/${hostId}`)).status).toBe(404);

    const text = await scrape();
    expect(sample(text, 'sac_ingest_created_total')).toBe(1);
    expect(sample(text, 'sac_ingest_duplicate_total')).toBe(1);
    expect(sample(text, 'sac_ingest_rejected_total{reason="validation",status="422"}')).toBe(1);
    expect(sample(text, 'sac_ingest_rejected_total{reason="unauthorized",status="401"}')).toBe(1);
    expect(sample(text, 'sac_ingest_batch_size_sum')).toBe(2);
    expect(sample(text, 'sac_ingest_commit_duration_seconds_count')).toBe(2);
    expect(sample(text, 'sac_http_request_duration_seconds_count{method="POST",route="/api/v1/events",status="201"}')).toBe(1);
    expect(sample(text, 'sac_http_request_duration_seconds_count{method="POST",route="/api/v1/events",status="401"}')).toBe(1);
    // Route templates, not raw paths: the host id does not become a label value.
    expect(text).not.toContain(hostId);
    expect(sample(text, 'sac_http_request_duration_seconds_count{method="GET",route="/api/v1/hosts/:id",status="200"}')).toBe(1);
    expect(sample(text, 'sac_http_request_duration_seconds_count{method="GET",route="/trpc",status="200"}')).toBe(1);
    expect(sample(text, 'sac_http_request_duration_seconds_count{method="GET",route="other",status="404"}')).toBe(1);
    expect(sample(text, 'sac_hosts{status="online"}')).toBe(1);
    expect(sample(text, 'sac_hosts{status="stale"}')).toBe(0);
    // The high event opened a problem in the same commit.
    expect(['info', 'warning', 'high', 'critical'].map((severity) => sample(text, `sac_problems_open{severity="${severity}"}`))).toEqual([0, 0, 1, 0]);
    expect(sample(text, 'sac_outbox_pending')).toBe(0);
    expect(sample(text, 'sac_stream_clients')).toBe(0);
    expect(sample(text, 'sac_store_errors_total{operation="ingest_commit"}')).toBe(0);
    // prom-client's process and Node.js metrics.
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_p99_seconds \d/m);
  });

  it('counts live stream clients while they are connected', async () => {
    const stream = await openStream(sac, { token: await adminToken(sac) });
    await stream.next((f) => f.event === 'counters');
    expect(sample(await scrape(), 'sac_stream_clients')).toBe(1);
    stream.close();
    await stream.ended;
    // The server notices the closed socket on its own schedule: wait for that, not for a time.
    let clients = 1;
    while (clients !== 0) clients = sample(await scrape(), 'sac_stream_clients') ?? -1;
  });

  it('passes promtool check metrics', async (ctx) => {
    const promtool = opsTool('promtool');
    if (promtool.path === null) return ctx.skip(promtool.skip);
    expect((await postEvent(sac.url, sac.apiKey, buildEvent())).status).toBe(201);
    const check = runTool(promtool.path, ['check', 'metrics'], await scrape());
    expect(check.output).toBe('');
    expect(check.status).toBe(0);
  });
});
