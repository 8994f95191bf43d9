import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api } from '../helpers/auth.js';
import { waitFor } from '../helpers/clock.js';
import { ingestEvent, postEvent, startTestSac, type TestSac } from '../helpers/daemon.js';
import { buildEvent, rdGatewayEvent } from '../helpers/events.js';
import { buildMmdb } from '../helpers/mmdb.js';
import { STORE_KINDS, tempDir } from '../helpers/stores.js';
import { trpc } from '../peers/trpc.js';

const TEST_DB_BUILT = new Date('2026-05-01T00:00:00Z');

/** A Windows-agent RDP login event from `ip` (4625 failed unless `type` says otherwise), occurred now. */
const rdpLogin = (ip: string, type = 'rdp.login.failed') => ({
  type,
  occurred_at: new Date().toISOString(),
  title: type,
  details: { user: 'administrator', ip_address: ip, logon_type: 10, event_id_windows: type === 'rdp.login.failed' ? 4625 : 4624, generated_by: 'agent', telegram_via: 'sac' },
});

describe.each(STORE_KINDS)('source address enrichment on %s', (kind) => {
  let t: TestSac;
  let token: string;
  const dir = tempDir('sac-geo-');
  const countryDb = path.join(dir, 'country.mmdb');
  const asnDb = path.join(dir, 'asn.mmdb');

  beforeAll(async () => {
    // Documentation ranges, which no real database maps: one in ip-location-db's layout, one in MaxMind's.
    writeFileSync(
      countryDb,
      buildMmdb(
        [
          { cidr: '198.51.100.0/24', record: { country_code: 'NZ' } },
          { cidr: '192.0.2.0/24', record: { country: { iso_code: 'DE' } } },
        ],
        { databaseType: 'test-country', builtAt: TEST_DB_BUILT },
      ),
    );
    writeFileSync(
      asnDb,
      buildMmdb(
        [
          { cidr: '198.51.100.0/24', record: { autonomous_system_number: 64500, autonomous_system_organization: 'Example Transit' } },
          { cidr: '192.0.2.0/24', record: { autonomous_system_number: 64501, autonomous_system_organization: 'Doc Net' } },
        ],
        { databaseType: 'test-asn', builtAt: TEST_DB_BUILT },
      ),
    );
    t = await startTestSac(kind);
    token = await adminToken(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  const health = async () => (await api(t, 'GET', '/health')).body;
  const event = async (id: string) => (await api(t, 'GET', `/api/v1/events/${id}`, { token })).body;
  const listIds = async (query: string) => ((await api(t, 'GET', `/api/v1/events?${query}`, { token })).body.items as { event_id: string }[]).map((e) => e.event_id).sort();
  const setDatabases = async (values: Record<string, unknown>, ready: (h: any) => boolean) => {
    expect((await api(t, 'PATCH', '/api/v1/settings/geoip', { token, body: values })).status).toBe(200);
    return waitFor('the geoip settings applied', async () => {
      const h = await health();
      return ready(h) ? h : null;
    });
  };

  it('labels private and documentation ranges, and the shipped database answers a public address with its country', async () => {
    const h = await health();
    expect(h.status).toBe('ok');
    expect(h.enrichment).toMatchObject({ enabled: true, country: { source: 'shipped', built_at: '2026-06-17T19:51:40.000Z', problem: null }, asn: { source: 'shipped' } });

    const privateId = await ingestEvent(t, rdpLogin('10.20.30.40'));
    const cgnatId = await ingestEvent(t, rdpLogin('100.64.1.2'));
    const docId = await ingestEvent(t, rdpLogin('198.51.100.7'));
    const publicId = await ingestEvent(t, rdpLogin('1.1.1.1', 'rdp.login.success'));
    const heartbeat = buildEvent({ type: 'agent.heartbeat', category: 'agent', severity: 'info', details: { generated_by: 'agent', host: 'RDS01' } });
    delete heartbeat.details!.ip_address;
    expect((await postEvent(t.url, t.apiKey, heartbeat)).status).toBe(201);

    expect((await event(privateId)).source_geo).toEqual({ ip: '10.20.30.40', scope: 'private', country: null, asn: null, as_org: null });
    expect((await event(cgnatId)).source_geo).toMatchObject({ scope: 'cgnat', country: null });
    // The shipped databases map no documentation range.
    expect((await event(docId)).source_geo).toEqual({ ip: '198.51.100.7', scope: 'documentation', country: null, asn: null, as_org: null });
    // What the shipped country database (ip-location-db geo-whois-asn-country) says of 1.1.1.1.
    expect((await event(publicId)).source_geo).toMatchObject({ ip: '1.1.1.1', scope: 'public', country: 'AU' });
    expect((await event(heartbeat.event_id)).source_geo).toBeNull();
  });

  it.runIf(kind === 'sqlite')('reads the shipped ASN table once a public address arrives, then answers its ASN', async () => {
    await ingestEvent(t, rdpLogin('8.8.8.8'));
    await waitFor('the shipped ASN table read', async () => (await health()).enrichment.asn.problem === null, 120_000);
    expect((await health()).enrichment.asn.built_at).toBe('2026-06-17T19:00:00.000Z');
    const id = await ingestEvent(t, rdpLogin('1.1.1.1'));
    expect((await event(id)).source_geo).toEqual({ ip: '1.1.1.1', scope: 'public', country: 'AU', asn: 13335, as_org: 'Cloudflare, Inc.' });
  }, 130_000);

  it('stores the country and ASN of an operator database with the event, filters by them, and counts failed logins by source', async () => {
    const h = await setDatabases({ country_db_path: countryDb, asn_db_path: asnDb }, (x) => x.enrichment.country.source === 'file' && x.enrichment.asn.source === 'file');
    expect(h.enrichment).toEqual({
      enabled: true,
      country: { source: 'file', built_at: TEST_DB_BUILT.toISOString(), problem: null },
      asn: { source: 'file', built_at: TEST_DB_BUILT.toISOString(), problem: null },
    });
    const failedNz = await ingestEvent(t, rdpLogin('198.51.100.7'));
    const failedNz2 = await ingestEvent(t, { ...rdpLogin('198.51.100.8'), host: { hostname: 'RDS02' } });
    // As the gateway sends it: the client in `external_ip`, no `ip_address`.
    const gateway = buildEvent(rdGatewayEvent('10.0.0.31', 'rdg.connection.failed'));
    gateway.details = { ...gateway.details, external_ip: '192.0.2.9' };
    delete gateway.details.ip_address;
    gateway.occurred_at = new Date().toISOString();
    expect((await postEvent(t.url, t.apiKey, gateway)).status).toBe(201);
    const failedDe = gateway.event_id;
    // A dual-stack listener's IPv4-mapped address, in WinRM's `source_ip`.
    const winrm = await ingestEvent(t, {
      type: 'winrm.session.started',
      category: 'agent',
      details: { user: 'CORP\\svc', source_ip: '::ffff:198.51.100.9', ip_address: '::ffff:198.51.100.9', transport: 'HTTP', generated_by: 'agent' },
    });

    expect((await event(failedNz)).source_geo).toEqual({ ip: '198.51.100.7', scope: 'documentation', country: 'NZ', asn: 64500, as_org: 'Example Transit' });
    expect((await event(failedDe)).source_geo).toEqual({ ip: '192.0.2.9', scope: 'documentation', country: 'DE', asn: 64501, as_org: 'Doc Net' });
    expect((await event(winrm)).source_geo).toMatchObject({ ip: '198.51.100.9', country: 'NZ', asn: 64500 });

    expect(await listIds('country=NZ')).toEqual([failedNz, failedNz2, winrm].sort());
    expect(await listIds('country=nz&type=rdp.login')).toEqual([failedNz, failedNz2].sort());
    expect(await listIds('asn=AS64501')).toEqual([failedDe]);
    expect(await listIds('asn=64500&hostname=RDS02')).toEqual([failedNz2]);
    const viaTrpc = await trpc(t, token, 'query', 'events.list', { country: 'de' });
    expect(viaTrpc.data.items.map((e: { event_id: string; source_geo: { as_org: string } }) => [e.event_id, e.source_geo.as_org])).toEqual([[failedDe, 'Doc Net']]);
    expect((await api(t, 'GET', '/api/v1/events?country=NZL', { token })).status).toBe(400);
    expect((await api(t, 'GET', '/api/v1/events?asn=0', { token })).status).toBe(400);

    // Failed logins only (the WinRM session is not one), the busiest source first.
    const res = await api(t, 'GET', '/api/v1/dashboards/summary', { token });
    expect(res.status, t.logs.filter((l) => l.includes('"level":50')).join('\n')).toBe(200);
    const summary = res.body;
    // (Earlier tests' failed logins from elsewhere are in the range too.)
    const sources = summary.failed_login_sources as { countries: { country: string }[]; asns: { asn: number }[] };
    expect(sources.countries.filter((c) => ['NZ', 'DE'].includes(c.country))).toEqual([
      { country: 'NZ', count: 2 },
      { country: 'DE', count: 1 },
    ]);
    expect(sources.asns.filter((a) => a.asn >= 64500)).toEqual([
      { asn: 64500, as_org: 'Example Transit', count: 2 },
      { asn: 64501, as_org: 'Doc Net', count: 1 },
    ]);
    expect(summary.geo.enabled).toBe(true);
  });

  it('keeps ingesting when a database is corrupt or missing, and the health page says why', async () => {
    const corrupt = path.join(dir, 'corrupt.mmdb');
    writeFileSync(corrupt, Buffer.from('this is not a MaxMind database'.repeat(100)));
    let h = await setDatabases({ country_db_path: corrupt, asn_db_path: asnDb }, (x) => x.enrichment.country.problem !== null);
    expect(h.status).toBe('ok');
    expect(h.enrichment).toMatchObject({ enabled: true, country: { source: 'file', problem: expect.stringMatching(/^database unreadable: /) }, asn: { problem: null } });
    const halfId = await ingestEvent(t, rdpLogin('198.51.100.20'));
    expect((await event(halfId)).source_geo).toEqual({ ip: '198.51.100.20', scope: 'documentation', country: null, asn: 64500, as_org: 'Example Transit' });

    h = await setDatabases({ asn_db_path: path.join(dir, 'missing.mmdb') }, (x) => x.enrichment.enabled === false);
    // Fail-open: the daemon stays healthy for the agents (200), the page says what is off and why, without the path.
    expect((await api(t, 'GET', '/health')).status).toBe(200);
    expect(h.enrichment.asn.problem).toBe('database file cannot be read (ENOENT)');
    const offId = await ingestEvent(t, rdpLogin('198.51.100.21'));
    expect((await event(offId)).source_geo).toEqual({ ip: '198.51.100.21', scope: 'documentation', country: null, asn: null, as_org: null });
    const summary = await api(t, 'GET', '/api/v1/dashboards/summary', { token });
    expect(summary.status, t.logs.filter((l) => l.includes('"level":50')).join('\n')).toBe(200);
    expect(summary.body.geo).toMatchObject({ enabled: false });
  });
});
