import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api, hostIdOf, userToken } from '../helpers/auth.js';
import { ingestEvent, postEvent, startTestSac, type TestSac } from '../helpers/daemon.js';
import { buildEvent, rdGatewayEvent } from '../helpers/events.js';
import { STORE_KINDS } from '../helpers/stores.js';
import { startNtlmRecorder, type NtlmRecorder } from '../peers/ntlm-recorder.peer.js';
import { trpc } from '../peers/trpc.js';

const VICTIM_IP = '10.0.0.20';

describe.each(STORE_KINDS)('remote actions reach only verified targets: %s', (kind) => {
  let t: TestSac;
  let recorder: NtlmRecorder;
  let admin: string;
  let monitor: string;
  let victim: string;
  let attacker: string;
  let gatewayEvent: string;

  beforeAll(async () => {
    recorder = await startNtlmRecorder();
    // Loopback is a trusted proxy, so agents below can come "from" other addresses via X-Forwarded-For.
    t = await startTestSac(kind, { SAC_TRUSTED_PROXIES: '127.0.0.1' });
    admin = await adminToken(t);
    monitor = await userToken(t, 'monitor');
    expect(
      (await api(t, 'PATCH', '/api/v1/settings/windows_admin', { token: admin, body: { username: 'CORP\\admin', password: 'Adm1n-pass', transport: 'http', port: recorder.port } }))
        .status,
    ).toBe(200);
    const bound = await api(t, 'POST', '/api/v1/api-keys', { token: admin, body: { label: 'attacker-ws only', hostname: 'ATTACKER-WS', on_mismatch: 'refuse' } });
    expect(bound.status).toBe(201);

    victim = await hostIdOf(t, await ingestEvent(t, { host: { hostname: 'WS-VICTIM', os_family: 'windows', ipv4: VICTIM_IP }, source: { agent_instance_id: 'victim-agent' } }));
    // The attacker's own host, with the bound key: the victim's address, and an FQDN that points at
    // the attacker's NTLM listener.
    const claim = buildEvent({ host: { hostname: 'ATTACKER-WS', os_family: 'windows', ipv4: VICTIM_IP, fqdn: '127.0.0.1' }, source: { agent_instance_id: 'attacker-agent' } });
    expect((await postEvent(t.url, bound.body.key, claim)).status).toBe(201);
    attacker = await hostIdOf(t, claim.event_id);
    gatewayEvent = await ingestEvent(t, rdGatewayEvent(VICTIM_IP));
  });
  afterAll(async () => {
    await t?.close();
    await recorder?.stop();
  });

  it('sends no NTLM AUTHENTICATE when an agent claims another host’s address, and tells the operator why', async () => {
    const res = await api(t, 'POST', `/api/v1/events/${gatewayEvent}/actions/sessions`, { token: monitor });
    expect(recorder.legs).not.toContain('AUTHENTICATE');
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('action/target_ambiguous');
    expect(res.body.error.message).toContain('ATTACKER-WS');
    expect(res.body.error.message).toContain('WS-VICTIM');
    expect(res.body.error.message).toMatch(/admin must pin/);

    const logoff = await api(t, 'POST', `/api/v1/events/${gatewayEvent}/actions/logoff`, { token: monitor, body: { session_id: 2 } });
    expect(logoff.body.error.code).toBe('action/target_ambiguous');

    // Acting on the attacker's host directly: it connects from loopback but reports the victim's address.
    const direct = await api(t, 'GET', `/api/v1/hosts/${attacker}/sessions`, { token: monitor });
    expect(direct.status).toBe(409);
    expect(direct.body.error.code).toBe('action/target_unverified');
    expect(direct.body.error.message).toMatch(/an admin must pin/);
    expect(recorder.legs).not.toContain('AUTHENTICATE');
    expect(recorder.requests).toBe(0);
  });

  it('shows reported, observed and pinned addresses; an admin pin decides where credentials go', async () => {
    const before = await api(t, 'GET', `/api/v1/hosts/${victim}`, { token: monitor });
    expect(before.body).toMatchObject({ ipv4: VICTIM_IP, observed_ip: '127.0.0.1', pinned_address: null, action_target: { verified: false } });

    expect((await api(t, 'PUT', `/api/v1/hosts/${victim}/action-address`, { token: monitor, body: { address: '127.0.0.1' } })).status).toBe(403);
    const hostile = await api(t, 'PUT', `/api/v1/hosts/${victim}/action-address`, { token: admin, body: { address: 'evil.example/#' } });
    expect(hostile.status).toBe(400);
    const pinned = await api(t, 'PUT', `/api/v1/hosts/${victim}/action-address`, { token: admin, body: { address: '127.0.0.1', winrm_name: 'ws-victim.corp.example' } });
    expect(pinned.status).toBe(200);
    expect(pinned.body).toMatchObject({
      pinned_address: '127.0.0.1',
      pinned_winrm_name: 'ws-victim.corp.example',
      action_target: { verified: true, source: 'pinned', address: '127.0.0.1', name: 'ws-victim.corp.example' },
    });
    const taken = await api(t, 'PUT', `/api/v1/hosts/${attacker}/action-address`, { token: admin, body: { address: '127.0.0.1' } });
    expect(taken.status).toBe(409);
    expect(taken.body.error).toMatchObject({ code: 'host/pin_conflict', message: expect.stringContaining('WS-VICTIM') });

    // Every agent here connects from loopback, so all of them claim 127.0.0.1; the pin decides. The
    // credentials go to the pinned host (the recorder stands in for it): NTLM runs, and is refused.
    const toPinned = await ingestEvent(t, rdGatewayEvent('127.0.0.1'));
    const res = await api(t, 'POST', `/api/v1/events/${toPinned}/actions/sessions`, { token: monitor });
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('winrm/auth_failed');
    expect(recorder.legs).toEqual(['NEGOTIATE', 'AUTHENTICATE']);
    const audited = await api(t, 'GET', '/api/v1/audit?action=actions.sessions_listed&limit=10', { token: admin });
    expect(audited.body.entries[0]).toMatchObject({ target: `host:${victim}`, outcome: 'failed' });
    // The victim's own address is still claimed by both hosts: a pin elsewhere does not settle it.

    const unpinned = await trpc(t, admin, 'mutation', 'hosts.unpinAddress', { id: victim });
    expect(unpinned.data).toMatchObject({ pinned_address: null, action_target: { verified: false } });
    expect((await api(t, 'POST', `/api/v1/events/${gatewayEvent}/actions/sessions`, { token: monitor })).body.error.code).toBe('action/target_ambiguous');

    const audit = await api(t, 'GET', `/api/v1/audit?action=host.&target=host:${victim}&limit=10`, { token: admin });
    expect(audit.body.entries.map((e: { action: string }) => e.action).sort()).toEqual(['host.address_pinned', 'host.address_unpinned']);
    expect(audit.body.entries.find((e: { action: string }) => e.action === 'host.address_pinned').details).toMatchObject({ address: '127.0.0.1', winrm_name: 'ws-victim.corp.example' });
  });

  it('verifies an address the agent reports and connects from, and follows it when it moves', async () => {
    const from = (ip: string, reported: string) =>
      postEvent(t.url, t.apiKey, buildEvent({ host: { hostname: 'WS-MOVING', os_family: 'windows', ipv4: reported }, source: { agent_instance_id: 'moving-agent' } }), {
        'X-Forwarded-For': ip,
      });
    const first = await from('10.1.2.3', '10.1.2.3');
    expect(first.status).toBe(201);
    const id = await hostIdOf(t, first.body.event_id);
    expect((await api(t, 'GET', `/api/v1/hosts/${id}`, { token: monitor })).body.action_target).toEqual({
      verified: true,
      source: 'observed',
      address: '10.1.2.3',
      name: '10.1.2.3',
    });
    expect((await from('10.1.2.4', '10.1.2.4')).status).toBe(201);
    expect((await api(t, 'GET', `/api/v1/hosts/${id}`, { token: monitor })).body).toMatchObject({ observed_ip: '10.1.2.4', action_target: { address: '10.1.2.4' } });
    // Reporting an address it does not connect from: unverified.
    expect((await from('10.1.2.9', '10.1.2.50')).status).toBe(201);
    expect((await api(t, 'GET', `/api/v1/hosts/${id}`, { token: monitor })).body.action_target).toEqual({
      verified: false,
      reason_code: 'mismatch',
      reason: 'the agent connects from 10.1.2.9 but reports 10.1.2.50',
    });
  });
});

/** A throw-away CA and a certificate it issued for `name`, made with openssl. */
function issue(name: string): { ca: string; key: string; cert: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'sac-ca-'));
  const ssl = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1'];
    ssl(['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-subj', '/CN=Corp Test CA']);
    ssl(['req', '-x509', ...ec, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-keyout', 'host.key', '-out', 'host.pem', '-subj', `/CN=${name}`, '-addext', `subjectAltName=DNS:${name}`]);
    const read = (f: string) => readFileSync(path.join(dir, f), 'utf8');
    return { ca: read('ca.pem'), key: read('host.key'), cert: read('host.pem') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('WinRM over HTTPS checks the certificate for the pinned name against the admin’s CA', () => {
  let t: TestSac;
  let recorder: NtlmRecorder;
  let admin: string;
  let monitor: string;
  let ws: string;
  const pki = issue('ws-tls.corp.example');
  const pin = async (winrm_name: string) =>
    expect((await api(t, 'PUT', `/api/v1/hosts/${ws}/action-address`, { token: admin, body: { address: '127.0.0.1', winrm_name } })).status).toBe(200);
  const settings = async (values: Record<string, unknown>) => expect((await api(t, 'PATCH', '/api/v1/settings/windows_admin', { token: admin, body: values })).status).toBe(200);

  beforeAll(async () => {
    recorder = await startNtlmRecorder({ key: pki.key, cert: pki.cert });
    t = await startTestSac('sqlite');
    admin = await adminToken(t);
    monitor = await userToken(t, 'monitor');
    await settings({ username: 'CORP\\admin', password: 'Adm1n-pass', transport: 'https', port: recorder.port, verify_tls: true, ca_pem: pki.ca });
    ws = await hostIdOf(t, await ingestEvent(t, { host: { hostname: 'WS-TLS', os_family: 'windows', ipv4: '127.0.0.1' } }));
  });
  afterAll(async () => {
    await t?.close();
    await recorder?.stop();
  });

  it('authenticates only to a certificate valid for the pinned name and issued by the configured CA', async () => {
    const test = async () => (await api(t, 'POST', `/api/v1/hosts/${ws}/actions/winrm-test`, { token: monitor })).body;
    await pin('other.corp.example');
    expect(await test()).toMatchObject({ ok: false, detail: expect.stringMatching(/not trusted for other\.corp\.example \(ERR_TLS_CERT_ALTNAME_INVALID\)/) });

    await pin('ws-tls.corp.example');
    await settings({ ca_pem: '', password: 'Adm1n-pass' });
    expect(await test()).toMatchObject({ ok: false, detail: expect.stringMatching(/not trusted for ws-tls\.corp\.example \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\)/) });
    expect(recorder.requests).toBe(0);

    await settings({ ca_pem: pki.ca, password: 'Adm1n-pass' });
    expect(await test()).toMatchObject({ ok: false, detail: expect.stringMatching(/rejected the credentials/) });
    expect(recorder.legs).toEqual(['NEGOTIATE', 'AUTHENTICATE']);
  });

  it('refuses a CA field that is not PEM certificates', async () => {
    const res = await api(t, 'PATCH', '/api/v1/settings/windows_admin', { token: admin, body: { ca_pem: 'not a certificate', password: 'Adm1n-pass' } });
    expect(res.status).toBe(400);
  });
});

describe.each(STORE_KINDS)('an RD Gateway target only a host’s agent reports sends it no credentials: %s', (kind) => {
  let t: TestSac;
  let recorder: NtlmRecorder;
  let monitor: string;
  let key: string;
  // The gateway's agent connects from its own address, so only the attacker connects from loopback.
  const gateway = async (target: string) => {
    const event = buildEvent(rdGatewayEvent(target));
    expect((await postEvent(t.url, t.apiKey, event, { 'X-Forwarded-For': '10.0.0.1' })).status).toBe(201);
    return event.event_id;
  };
  const claim = async (host: Record<string, string>) =>
    expect((await postEvent(t.url, key, buildEvent({ host: { hostname: 'ATTACKER-WS', os_family: 'windows', ...host }, source: { agent_instance_id: 'attacker-agent' } }))).status).toBe(201);

  beforeAll(async () => {
    recorder = await startNtlmRecorder();
    t = await startTestSac(kind, { SAC_TRUSTED_PROXIES: '127.0.0.1' });
    const admin = await adminToken(t);
    monitor = await userToken(t, 'monitor');
    await api(t, 'PATCH', '/api/v1/settings/windows_admin', { token: admin, body: { username: 'CORP\\admin', password: 'Adm1n-pass', transport: 'http', port: recorder.port } });
    key = (await api(t, 'POST', '/api/v1/api-keys', { token: admin, body: { label: 'attacker-ws only', hostname: 'ATTACKER-WS', on_mismatch: 'refuse' } })).body.key;
  });
  afterAll(async () => {
    await t?.close();
    await recorder?.stop();
  });

  it('refuses a target claimed by a reported FQDN or address that is not where the host is verified', async () => {
    // The attacker's host is verified at its own address (loopback, the recorder) and reports the
    // victim workstation's FQDN, which no other host claims (the victim runs no agent).
    await claim({ ipv4: '127.0.0.1', fqdn: 'ws-victim.corp.example' });
    const byName = await api(t, 'POST', `/api/v1/events/${await gateway('ws-victim.corp.example')}/actions/sessions`, { token: monitor });
    expect(byName.body.error).toMatchObject({ code: 'action/target_unverified', message: expect.stringContaining('ATTACKER-WS') });
    expect(byName.status).toBe(409);

    // Then it reports the victim's address; the address it connects from stays among its earlier ones.
    await claim({ ipv4: '10.0.0.77' });
    const byAddress = await api(t, 'POST', `/api/v1/events/${await gateway('10.0.0.77')}/actions/logoff`, { token: monitor, body: { session_id: 2 } });
    expect(byAddress.body.error.code).toBe('action/target_unverified');
    expect(recorder.requests).toBe(0);
  });
});

describe.each(STORE_KINDS)('an event a bound key sends, flagged, for another host does not move that host’s action target: %s', (kind) => {
  let t: TestSac;

  beforeAll(async () => {
    t = await startTestSac(kind, { SAC_TRUSTED_PROXIES: '127.0.0.1' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('keeps the address SAC observed the host’s own agent use', async () => {
    const admin = await adminToken(t);
    const victim = buildEvent({ host: { hostname: 'WS-FLAGGED', os_family: 'windows', ipv4: '10.0.0.30' }, source: { agent_instance_id: 'flagged-victim' } });
    expect((await postEvent(t.url, t.apiKey, victim, { 'X-Forwarded-For': '10.0.0.30' })).status).toBe(201);
    const id = await hostIdOf(t, victim.event_id);
    const flag = await api(t, 'POST', '/api/v1/api-keys', { token: admin, body: { label: 'attacker-ws, flag', hostname: 'ATTACKER-WS', on_mismatch: 'flag' } });
    // Accepted and flagged: the admin chose to keep such events, not to let them say where the host is.
    const forged = buildEvent({ host: { hostname: 'WS-FLAGGED', os_family: 'windows', ipv4: '127.0.0.1' }, source: { agent_instance_id: 'flagged-victim' } });
    expect((await postEvent(t.url, flag.body.key, forged)).status).toBe(201);
    expect((await api(t, 'GET', `/api/v1/hosts/${id}`, { token: admin })).body).toMatchObject({
      observed_ip: '10.0.0.30',
      action_target: { verified: true, source: 'observed', address: '10.0.0.30' },
    });
  });
});
