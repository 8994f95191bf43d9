import { statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BAD_PAYLOADS } from '../helpers/bad-payloads.js';
import { postEvent, startTestSac, type TestSac } from '../helpers/daemon.js';
import { buildEvent, loadFixtures } from '../helpers/events.js';
import { STORE_KINDS } from '../helpers/stores.js';

describe.each(STORE_KINDS)('POST /api/v1/events on %s', (kind) => {
  let sac: TestSac;
  beforeAll(async () => {
    sac = await startTestSac(kind);
  });
  afterAll(async () => {
    await sac?.close();
  });

  it('writes the generated bootstrap key to a 0600 file', () => {
    expect(sac.apiKey).toMatch(/^sac_[A-Za-z0-9]{40}$/);
    expect(statSync(path.join(sac.dataDir, 'bootstrap-api-key')).mode & 0o777).toBe(0o600);
  });

  it('accepts all 24 agent fixtures with 201 and answers 409 when they are re-sent', async () => {
    const fixtures = loadFixtures();
    expect(fixtures).toHaveLength(24);
    for (const event of fixtures) {
      const res = await postEvent(sac.url, sac.apiKey, event, { 'Idempotency-Key': event.event_id });
      expect({ type: event.type, status: res.status, body: res.body }).toEqual({
        type: event.type,
        status: 201,
        body: { event_id: event.event_id, status: 'created' },
      });
    }
    for (const event of fixtures) {
      const res = await postEvent(sac.url, sac.apiKey, event);
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ error: { code: 'event/duplicate' }, event_id: event.event_id });
    }
    expect(await sac.sac.store.events.count()).toBe(24);
  });

  it('records each host once with its agent, and each event with host, actor user and agent version', async () => {
    const hosts = await sac.sac.store.hosts.list();
    expect(hosts.map((h) => h.key)).toEqual(expect.arrayContaining(['rds01|windows', 'rdg01|windows', 'dc01|windows', 'web-01|linux']));
    const web = hosts.find((h) => h.key === 'web-01|linux')!;
    expect(web).toMatchObject({ hostname: 'web-01', agent_product: 'ssh-monitor', agent_version: '1.1.2-ipset', fqdn: 'web-01.example.org' });
    expect(web.agent_instance_ids).toEqual(['srv-web-01-5c7e']);

    const shadow = await sac.sac.store.events.byId('e3c5a7b9-2d4f-4e6a-8b0c-1d3e5f7a9b2c');
    const rds = hosts.find((h) => h.key === 'rds01|windows')!;
    expect(shadow).toMatchObject({ host_id: rds.id, actor_user: 'CONTOSO\\admin', agent_version: '2.1.7-SAC' });
    expect(shadow!.received_ms).toBeGreaterThan(0);
  });

  it.each(BAD_PAYLOADS.map((c) => [c.rule, c]))('answers 422 naming the path: %s', async (_rule, c) => {
    const event = buildEvent() as Record<string, any>;
    c.mutate(event);
    const res = await postEvent(sac.url, sac.apiKey, event);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('event/validation_failed');
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toEqual([c.path]);
  });

  it('answers 422 for unparseable JSON and for a body that is not an object', async () => {
    const broken = await postEvent(sac.url, sac.apiKey, '{"schema_version": "1.0",');
    expect(broken.status).toBe(422);
    expect(broken.body.error).toMatchObject({ code: 'event/validation_failed', details: [{ path: '' }] });
    const array = await postEvent(sac.url, sac.apiKey, '[1,2]');
    expect(array.status).toBe(422);
  });

  it('tolerates a leading UTF-8 BOM and stores ids in lower case', async () => {
    const event = buildEvent();
    const upper = { ...event, event_id: event.event_id.toUpperCase() };
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(upper))]);
    const res = await postEvent(sac.url, sac.apiKey, body, { 'Idempotency-Key': upper.event_id });
    expect(res.status).toBe(201);
    expect(res.body.event_id).toBe(event.event_id.toLowerCase());
    expect((await postEvent(sac.url, sac.apiKey, event)).status).toBe(409);
  });

  it('answers 422 when Idempotency-Key differs from the body event_id', async () => {
    const event = buildEvent();
    const res = await postEvent(sac.url, sac.apiKey, event, { 'Idempotency-Key': buildEvent().event_id });
    expect(res.status).toBe(422);
    expect(res.body.error.details).toEqual([{ path: 'Idempotency-Key', message: expect.any(String) }]);
    expect(await sac.sac.store.events.byId(event.event_id)).toBeNull();
  });

  it('answers 401 without a key, with a wrong key, and accepts X-API-Key', async () => {
    const event = buildEvent();
    const none = await postEvent(sac.url, null, event);
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('auth/unauthorized');
    expect((await postEvent(sac.url, `${sac.apiKey}x`, event)).status).toBe(401);
    expect((await postEvent(sac.url, null, event, { Authorization: `Basic ${sac.apiKey}` })).status).toBe(401);
    expect((await postEvent(sac.url, null, event, { 'X-API-Key': sac.apiKey })).status).toBe(201);
  });

  it('refuses a revoked key at once', async () => {
    const { key, info } = await sac.sac.apiKeys.create('temporary');
    expect((await postEvent(sac.url, key, buildEvent())).status).toBe(201);
    await sac.sac.apiKeys.revoke(info.id);
    expect((await postEvent(sac.url, key, buildEvent())).status).toBe(401);
  });

  it('answers 413 above 1 MiB', async () => {
    const event = buildEvent({ details: { blob: 'x'.repeat(1024 * 1024) } });
    const res = await postEvent(sac.url, sac.apiKey, event);
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('request/too_large');
  });

  it('stores 50 concurrent deliveries of one event exactly once: one 201, 49 409s', async () => {
    const event = buildEvent();
    const results = await Promise.all(Array.from({ length: 50 }, () => postEvent(sac.url, sac.apiKey, event)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(49);
  });

  it('logs what the commit listeners do, also from the ingest thread (the embedded store commits there)', async () => {
    const event = buildEvent({ host: { hostname: 'LOGGED-PROBLEM-HOST' } });
    expect((await postEvent(sac.url, sac.apiKey, event)).status).toBe(201);
    const lines = sac.logs.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toContainEqual(
      expect.objectContaining({ msg: 'problem opened', scope: 'correlation', rule: 'severity', type: 'rdp.login.failed' }),
    );
  });

  it('logs created, duplicate and rejected events with id, type, host and key prefix, never the key', async () => {
    const event = buildEvent({ type: 'rdp.login.success', severity: 'info' });
    await postEvent(sac.url, sac.apiKey, event);
    await postEvent(sac.url, sac.apiKey, event);
    await postEvent(sac.url, sac.apiKey, { ...event, event_id: buildEvent().event_id, severity: 'bad' });
    const lines = sac.logs.map((l) => JSON.parse(l) as Record<string, unknown>);
    const prefix = sac.apiKey.slice(0, 12);
    expect(lines).toContainEqual(
      expect.objectContaining({ msg: 'event created', event_id: event.event_id, type: 'rdp.login.success', hostname: 'RDS01', key_prefix: prefix }),
    );
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'event duplicate', event_id: event.event_id, key_prefix: prefix }));
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'event rejected', key_prefix: prefix }));
    expect(sac.logs.some((l) => l.includes(sac.apiKey))).toBe(false);
    expect(sac.logs.some((l) => l.includes('"summary":'))).toBe(false);
  });

  it('answers a poisonous event of a concurrent batch 422 and the rest of the batch 201, never 503', async () => {
    // Nested 10,000 deep: JSON.parse takes it, but structured clone (the ingest thread) and
    // JSON.stringify run out of stack on it, so it is sent as text.
    const deep = buildEvent();
    const deepBody = JSON.stringify(deep).replace('"details":{', `"details":{"x":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)},`);
    // MongoDB (FerretDB) refuses these keys in a stored document; SQLite stores them.
    const dotted = buildEvent({ details: { 'file.name': 'a.txt' } });
    const dollar = buildEvent({ details: { $where: 'x' } });
    const good = Array.from({ length: 12 }, (_, i) => buildEvent({ host: { hostname: `BATCH-${i % 3}` } }));
    const [deepRes, dottedRes, dollarRes, ...goodRes] = await Promise.all([
      postEvent(sac.url, sac.apiKey, deepBody),
      postEvent(sac.url, sac.apiKey, dotted),
      postEvent(sac.url, sac.apiKey, dollar),
      ...good.map((e) => postEvent(sac.url, sac.apiKey, e)),
    ]);
    expect(deepRes.status).toBe(422);
    expect(deepRes.body.error).toMatchObject({ code: 'event/validation_failed', details: [{ path: 'details', message: expect.stringMatching(/32 levels/) }] });
    expect(goodRes.map((r) => r.status)).toEqual(good.map(() => 201));
    for (const e of good) expect(await sac.sac.store.events.byId(e.event_id)).not.toBeNull();
    expect(await sac.sac.store.events.byId(deep.event_id)).toBeNull();
    if (kind === 'mongodb') {
      for (const [res, e] of [[dottedRes, dotted], [dollarRes, dollar]] as const) {
        expect(res.status).toBe(422);
        expect(res.body.error.code).toBe('event/unprocessable');
        expect(await sac.sac.store.events.byId(e.event_id)).toBeNull();
      }
      // Refused for good, so a re-send is refused again rather than answered 409.
      expect((await postEvent(sac.url, sac.apiKey, dotted)).status).toBe(422);
    } else {
      expect([dottedRes.status, dollarRes.status]).toEqual([201, 201]);
    }
  });

  it('answers GET /health and /healthz without auth', async () => {
    for (const route of ['/health', '/healthz']) {
      const res = await fetch(`${sac.url}${route}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ status: 'ok', version: expect.any(String), store: kind, uptime_s: expect.any(Number) });
    }
  });
});

describe.each(STORE_KINDS)('store outage on %s', (kind) => {
  it('answers 503 with Retry-After on ingest and degraded health, never 500 or 200', async () => {
    const sac = await startTestSac(kind);
    try {
      await sac.sac.store.close();
      const res = await postEvent(sac.url, sac.apiKey, buildEvent());
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(res.body.error.code).toBe('store/unavailable');
      const health = await fetch(`${sac.url}/health`);
      expect(health.status).toBe(503);
      expect(await health.json()).toMatchObject({ status: 'degraded', store: kind });
    } finally {
      await sac.close();
    }
  });
});

describe('configuration of keys and paths', () => {
  it('seeds the bootstrap key from SAC_BOOTSTRAP_API_KEY and serves under SAC_BASE_PATH', async () => {
    const key = 'sac_SeededKeyForProvisioning0123456789';
    const sac = await startTestSac('sqlite', { SAC_BOOTSTRAP_API_KEY: key, SAC_BASE_PATH: '/sac' });
    try {
      expect(sac.sac.generatedApiKey).toBeNull();
      const res = await fetch(`${sac.url}/sac/api/v1/events`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(buildEvent()),
      });
      expect(res.status).toBe(201);
      expect((await fetch(`${sac.url}/sac/health`)).status).toBe(200);
      expect((await sac.sac.apiKeys.list()).map((k) => k.label)).toEqual(['bootstrap']);
    } finally {
      await sac.close();
    }
  });
});
