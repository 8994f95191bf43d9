import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api, createUser, hostIdOf, login, userToken } from '../helpers/auth.js';
import { ingestEvent, startTestSac, type TestSac } from '../helpers/daemon.js';
import { startWinRmPeer, type WinRmPeer } from '../peers/winrm/winrm-peer.js';

const ADMIN_USER = 'CORP\\admin';
const ADMIN_PASSWORD = 'Adm1n-pass';

async function setWindowsAdmin(t: TestSac, values: Record<string, unknown>): Promise<void> {
  const res = await api(t, 'PATCH', '/api/v1/settings/windows_admin', { token: await adminToken(t), body: values });
  expect(res.status).toBe(200);
}

describe.each([
  { transport: 'http', lang: 'en', codepage: 'cp437', user3: 'ivanov' },
  { transport: 'https', lang: 'ru', codepage: 'cp866', user3: 'Иванов' },
] as const)('sessions over WinRM ($transport, $lang) through the HTTP API', ({ transport, lang, codepage, user3 }) => {
  let t: TestSac;
  let peer: WinRmPeer;
  let ws: string;
  let linuxHost: string;
  let monitor: string;
  let gatewayEvent: string;

  beforeAll(async () => {
    peer = await startWinRmPeer({ user: ADMIN_USER, password: ADMIN_PASSWORD, https: transport === 'https', lang });
    t = await startTestSac('sqlite');
    await setWindowsAdmin(t, { username: ADMIN_USER, password: ADMIN_PASSWORD, transport, port: peer.port, verify_tls: false, codepage });
    // The workstation: its NetBIOS name does not resolve here, so SAC goes on to its address.
    ws = await hostIdOf(t, await ingestEvent(t, { host: { hostname: 'WS-LAB', os_family: 'windows', ipv4: '127.0.0.1' }, source: { agent_instance_id: 'ws-agent' } }));
    // Every agent here connects from loopback, which identifies none of them: an admin pins WS-LAB.
    expect((await api(t, 'PUT', `/api/v1/hosts/${ws}/action-address`, { token: await adminToken(t), body: { address: '127.0.0.1' } })).status).toBe(200);
    gatewayEvent = await ingestEvent(t, {
      type: 'rdg.connection.success',
      category: 'network',
      severity: 'info',
      host: { hostname: 'RDG01', os_family: 'windows', ipv4: '10.0.0.1' },
      source: { agent_instance_id: 'gateway-agent' },
      details: { user: 'CORP\\jdoe', external_ip: '203.0.113.9', internal_ip: 'ws-lab', protocol: 'HTTP', event_id_windows: 302, generated_by: 'agent' },
    });
    linuxHost = await hostIdOf(
      t,
      await ingestEvent(t, {
        type: 'ssh.login.failed',
        source: { product: 'ssh-monitor', product_version: '1.1.2-ipset' },
        host: { hostname: 'web1', os_family: 'linux', ipv4: '10.0.0.9' },
      }),
    );
    monitor = await userToken(t, 'monitor');
  });
  afterAll(async () => {
    await t?.close();
    await peer?.stop();
  });

  it('lists the sessions (200, path winrm), logs one off, and the session is gone', async () => {
    const list = await api(t, 'GET', `/api/v1/hosts/${ws}/sessions`, { token: monitor });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ path: 'winrm', host_id: ws, target: '127.0.0.1' });
    expect(list.body.sessions).toEqual(expect.arrayContaining([expect.objectContaining({ id: 3, username: user3, state: 'Active' })]));
    expect(list.body.raw).toMatch(lang === 'ru' ? /СЕАНС/ : /SESSIONNAME/);

    const off = await api(t, 'POST', `/api/v1/hosts/${ws}/sessions/3/logoff`, { token: monitor });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ path: 'winrm', host_id: ws, session_id: 3 });
    expect(off.body.output).toMatch(/Logging off session ID 3/);
    const after = await api(t, 'GET', `/api/v1/hosts/${ws}/sessions`, { token: monitor });
    expect(after.body.sessions.map((s: { id: number }) => s.id)).not.toContain(3);
    const again = await api(t, 'POST', `/api/v1/hosts/${ws}/sessions/3/logoff`, { token: monitor });
    expect(again.status).toBe(502);
    expect(again.body.error.code).toBe('winrm/command_failed');
  });

  it('acts on the RD Gateway target workstation over WinRM, never through the gateway agent', async () => {
    const list = await api(t, 'POST', `/api/v1/events/${gatewayEvent}/actions/sessions`, { token: monitor });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ path: 'winrm', host_id: ws });
    const missing = await api(t, 'POST', `/api/v1/events/${gatewayEvent}/actions/logoff`, { token: monitor, body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe('actions/session_required');
    const off = await api(t, 'POST', `/api/v1/events/${gatewayEvent}/actions/logoff`, { token: monitor, body: { session_id: 4 } });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ path: 'winrm', host_id: ws, session_id: 4 });
    expect((await api(t, 'GET', '/api/v1/commands', { token: monitor })).body.items).toEqual([]);

    const stray = await ingestEvent(t, {
      type: 'rdg.connection.disconnected',
      category: 'network',
      host: { hostname: 'RDG01', os_family: 'windows', ipv4: '10.0.0.1' },
      details: { user: 'CORP\\jdoe', internal_ip: '10.20.30.40', event_id_windows: 303, generated_by: 'agent' },
    });
    const notFound = await api(t, 'POST', `/api/v1/events/${stray}/actions/sessions`, { token: monitor });
    expect(notFound.status).toBe(404);
    expect(notFound.body.error).toMatchObject({ code: 'host/not_found_for_target', details: { target: '10.20.30.40' } });
    expect(notFound.body.error.message).toContain('10.20.30.40');

    const ssh = await ingestEvent(t, { type: 'ssh.login.failed', source: { product: 'ssh-monitor' }, host: { hostname: 'web1', os_family: 'linux' } });
    expect((await api(t, 'POST', `/api/v1/events/${ssh}/actions/sessions`, { token: monitor })).body.error.code).toBe('actions/unsupported_event');
    const notWindows = await api(t, 'GET', `/api/v1/hosts/${linuxHost}/sessions`, { token: monitor });
    expect(notWindows.status).toBe(409);
    expect(notWindows.body.error.code).toBe('actions/not_windows');
  });

  it('tests WinRM access at both paths; a wrong password fails clearly; a silent host falls back to its agent', async () => {
    for (const path of [`/hosts/${ws}/actions/winrm-test`, `/api/v1/hosts/${ws}/actions/winrm-test`]) {
      const ok = await api(t, 'POST', path, { token: monitor });
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({ ok: true, detail: expect.any(String), duration_ms: expect.any(Number) });
    }
    await setWindowsAdmin(t, { password: 'wrong-password' });
    const bad = await api(t, 'POST', `/api/v1/hosts/${ws}/actions/winrm-test`, { token: monitor });
    expect(bad.body.ok).toBe(false);
    const refused = await api(t, 'GET', `/api/v1/hosts/${ws}/sessions`, { token: monitor });
    expect(refused.status).toBe(502);
    expect(refused.body.error.code).toBe('winrm/auth_failed');

    await setWindowsAdmin(t, { password: ADMIN_PASSWORD, port: 1 });
    const queued = await api(t, 'GET', `/api/v1/hosts/${ws}/sessions`, { token: monitor });
    expect(queued.status).toBe(202);
    expect(queued.body).toMatchObject({ path: 'agent', command: { agent_instance_id: 'ws-agent', type: 'qwinsta' } });
    await setWindowsAdmin(t, { password: ADMIN_PASSWORD, port: peer.port });

    const text = t.logs.join('\n');
    expect(text).not.toContain(ADMIN_PASSWORD);
    expect(text).not.toContain('wrong-password');
    const audit = await api(t, 'GET', '/api/v1/audit?action=actions.&limit=100', { token: await adminToken(t) });
    expect(JSON.stringify(audit.body)).not.toContain(ADMIN_PASSWORD);
    expect(audit.body.entries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ action: 'actions.logoff', outcome: 'ok', target: `host:${ws}`, actor_username: expect.stringMatching(/^monitor-/) }),
        expect.objectContaining({ action: 'actions.winrm_tested', outcome: 'failed' }),
      ]),
    );
  });
});

describe('remote actions: who may act', () => {
  let t: TestSac;
  let ws: string;

  beforeAll(async () => {
    t = await startTestSac('sqlite', { SAC_ACTIONS_RATE_PER_MINUTE: '3' });
    ws = await hostIdOf(t, await ingestEvent(t, { host: { hostname: 'WS-R', os_family: 'windows' }, source: { agent_instance_id: 'agent-r' } }));
  });
  afterAll(async () => {
    await t?.close();
  });

  it('lets a deactivated user do nothing', async () => {
    const { user, password } = await createUser(t, 'monitor');
    const token = (await login(t, user.username, password)).body.token as string;
    expect((await api(t, 'GET', `/api/v1/hosts/${ws}/sessions`, { token })).status).toBe(202);
    expect((await api(t, 'PATCH', `/api/v1/users/${user.id}`, { token: await adminToken(t), body: { active: false } })).status).toBe(200);
    const calls: [string, string, unknown?][] = [
      ['GET', `/api/v1/hosts/${ws}/sessions`],
      ['POST', `/api/v1/hosts/${ws}/sessions/2/logoff`],
      ['POST', `/api/v1/hosts/${ws}/actions/winrm-test`],
      ['POST', `/hosts/${ws}/actions/winrm-test`],
      ['POST', `/api/v1/hosts/${ws}/actions/ssh-test`],
      ['POST', '/api/v1/events/x/actions/sessions'],
      ['POST', '/api/v1/events/x/actions/logoff', { session_id: 2 }],
      ['GET', '/api/v1/commands'],
      ['GET', '/api/v1/commands/x'],
    ];
    for (const [method, path, body] of calls) {
      const res = await api(t, method, path, { token, body });
      expect(res.status, `${method} ${path}`).toBe(401);
    }
    const trpc = await fetch(`${t.url}/trpc/actions.sessions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      body: JSON.stringify({ host_id: ws }),
    });
    expect(trpc.status).toBe(401);
  });

  it('rate-limits each user (429 with retry_after_s) without affecting another', async () => {
    const a = await userToken(t, 'monitor');
    const b = await userToken(t, 'admin');
    for (let i = 0; i < 3; i++) expect((await api(t, 'GET', `/api/v1/hosts/${ws}/sessions`, { token: a })).status).toBe(202);
    const limited = await api(t, 'GET', `/api/v1/hosts/${ws}/sessions`, { token: a });
    expect(limited.status).toBe(429);
    expect(limited.body.error).toMatchObject({ code: 'actions/rate_limited', details: { retry_after_s: expect.any(Number) } });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await api(t, 'GET', `/api/v1/hosts/${ws}/sessions`, { token: b })).status).toBe(202);
  });
});
