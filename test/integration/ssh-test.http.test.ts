import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api, userToken } from '../helpers/auth.js';
import { ingestEvent, startTestSac, type TestSac } from '../helpers/daemon.js';
import { sshdAvailable, startSshd, type SshdPeer } from '../peers/sshd.peer.js';

// Creating the peer's local users and sudoers file needs root (as in CI, after setup-test-deps).
describe.skipIf(!sshdAvailable())('SSH administrator access test against a real sshd', () => {
  let t: TestSac;
  let sshd: SshdPeer;
  let hostId: string;
  let monitor: string;

  async function configure(values: Record<string, unknown>): Promise<void> {
    const res = await api(t, 'PATCH', '/api/v1/settings/ssh_admin', { token: await adminToken(t), body: values });
    expect(res.status).toBe(200);
  }

  async function probe() {
    const res = await api(t, 'POST', `/api/v1/hosts/${hostId}/actions/ssh-test`, { token: monitor });
    expect(res.status).toBe(200);
    const host = (await api(t, 'GET', `/api/v1/hosts/${hostId}`, { token: monitor })).body;
    return { result: res.body as { ok: boolean; detail: string; duration_ms: number }, host };
  }

  beforeAll(async () => {
    sshd = await startSshd();
    t = await startTestSac('sqlite');
    const eventId = await ingestEvent(t, {
      type: 'ssh.login.failed',
      source: { product: 'ssh-monitor', product_version: '1.1.2-ipset' },
      host: { hostname: 'sshbox', os_family: 'linux', ipv4: '127.0.0.1' },
    });
    hostId = (await api(t, 'GET', `/api/v1/events/${eventId}`, { token: await adminToken(t) })).body.host_id;
    monitor = await userToken(t, 'monitor');
  });
  afterAll(async () => {
    await t?.close();
    await sshd?.stop();
  });

  it('is refused until an SSH administrator is configured', async () => {
    const res = await api(t, 'POST', `/api/v1/hosts/${hostId}/actions/ssh-test`, { token: monitor });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('actions/ssh_not_configured');
  });

  it('sets ssh_admin_ok true for a key-authenticated user allowed sudo -n', async () => {
    await configure({ username: sshd.sudoer.name, port: sshd.port, private_key: sshd.clientKey, known_hosts: sshd.knownHosts });
    const { result, host } = await probe();
    expect(result).toMatchObject({ ok: true, duration_ms: expect.any(Number) });
    expect(result.detail).toContain('sudo -n true succeeded');
    expect(host.ssh_admin_ok).toBe(true);
    expect(Date.parse(host.ssh_admin_checked_at)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('sets ssh_admin_ok false for a password-authenticated user without sudo', async () => {
    await configure({ username: sshd.plain.name, private_key: null, password: sshd.plain.password });
    const { result, host } = await probe();
    expect(result.ok).toBe(false);
    expect(result.detail).toMatch(/sudo -n true failed/);
    expect(host.ssh_admin_ok).toBe(false);
  });

  it('passes with password authentication for the sudoer, fails on a wrong password', async () => {
    await configure({ username: sshd.sudoer.name, password: sshd.sudoer.password });
    expect((await probe()).host.ssh_admin_ok).toBe(true);
    await configure({ password: 'not-the-password' });
    const { result, host } = await probe();
    expect(result).toMatchObject({ ok: false, detail: expect.stringContaining('authentication failed') });
    expect(host.ssh_admin_ok).toBe(false);
  });

  it('refuses a host key that does not match known_hosts, and an unknown host (no trust on first use)', async () => {
    await configure({ password: sshd.sudoer.password, known_hosts: sshd.wrongKnownHosts });
    const mismatch = await probe();
    expect(mismatch.result).toMatchObject({ ok: false, detail: expect.stringContaining('does not match known_hosts') });
    expect(mismatch.host.ssh_admin_ok).toBe(false);
    await configure({ password: sshd.sudoer.password, known_hosts: '' });
    const unknown = await probe();
    expect(unknown.result).toMatchObject({ ok: false, detail: expect.stringContaining('not in known_hosts') });
    await configure({ password: sshd.sudoer.password, known_hosts: sshd.knownHosts });
    expect((await probe()).result.ok).toBe(true);
    await configure({ password: null, private_key: 'not a key' });
    expect((await probe()).result).toMatchObject({ ok: false, detail: expect.stringContaining('bad SSH settings') });

    const text = t.logs.join('\n');
    for (const secret of [sshd.sudoer.password, sshd.plain.password, sshd.clientKey.split('\n')[1]]) expect(text).not.toContain(secret);
  });

  it('goes only where SAC saw the agent connect or an admin pinned, never where an agent says it is', async () => {
    await configure({ username: sshd.sudoer.name, password: null, private_key: sshd.clientKey, known_hosts: sshd.knownHosts });
    // An agent key's holder names the sshd's address as its host name and FQDN, and reports another IPv4.
    const eventId = await ingestEvent(t, {
      type: 'ssh.login.failed',
      source: { product: 'ssh-monitor', product_version: '1.1.2-ipset' },
      host: { hostname: '127.0.0.1', fqdn: '127.0.0.1', os_family: 'linux', ipv4: '10.9.9.9' },
    });
    const admin = await adminToken(t);
    const liar = (await api(t, 'GET', `/api/v1/events/${eventId}`, { token: admin })).body.host_id;

    const steered = await api(t, 'POST', `/api/v1/hosts/${liar}/actions/ssh-test`, { token: monitor });
    expect(steered.status).toBe(409);
    expect(steered.body.error).toMatchObject({ code: 'action/target_unverified', message: expect.stringContaining('reports 10.9.9.9') });
    expect((await api(t, 'GET', `/api/v1/hosts/${liar}`, { token: monitor })).body.ssh_admin_ok).toBeNull();

    // An admin's pin decides; its name need not be in known_hosts when the address is.
    const pinned = await api(t, 'PUT', `/api/v1/hosts/${liar}/action-address`, { token: admin, body: { address: '127.0.0.1', winrm_name: 'lnx-liar.corp.example' } });
    expect(pinned.status).toBe(200);
    const res = await api(t, 'POST', `/api/v1/hosts/${liar}/actions/ssh-test`, { token: monitor });
    expect(res.body).toMatchObject({ ok: true, detail: expect.stringContaining('succeeded on 127.0.0.1') });
  });
});
