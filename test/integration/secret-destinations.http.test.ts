import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { utils } from 'ssh2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, api, userToken } from '../helpers/auth.js';
import { waitFor } from '../helpers/clock.js';
import { ingestEvent, startTestSac, type TestSac } from '../helpers/daemon.js';
import { STORE_KINDS } from '../helpers/stores.js';
import { sshdAvailable, startSshd, type SshdPeer } from '../peers/sshd.peer.js';
import { trpc } from '../peers/trpc.js';

const WIN_USER = 'CORP\\sac-admin';
const WIN_PASSWORD = 'Dom41n-admin-pass';
const ENV_PASSWORD = 'Env-admin-pass-7';

/** A loopback TCP listener that records every connection and the first bytes each one sends, then hangs up. */
interface Recorder {
  port: number;
  connections: number;
  received: string;
  close(): Promise<void>;
}

async function startRecorder(): Promise<Recorder> {
  const sockets = new Set<Socket>();
  const rec = { port: 0, connections: 0, received: '' } as Recorder;
  const server: Server = createServer((socket) => {
    rec.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.once('data', (d: Buffer) => {
      rec.received += d.toString('latin1');
      socket.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  rec.port = (server.address() as AddressInfo).port;
  rec.close = async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return rec;
}

async function hostIdOf(t: TestSac, eventId: string): Promise<string> {
  return (await api(t, 'GET', `/api/v1/events/${eventId}`, { token: await adminToken(t) })).body.host_id;
}

const SECRET_REQUIRED = (path: string) => ({ path, message: 'must be given again when its destination changes' });

describe.each(STORE_KINDS)('the WinRM password never follows a destination change on %s', (kind) => {
  let t: TestSac;
  let home: Recorder;
  let elsewhere: Recorder;
  let ws: string;
  let monitor: string;
  let admin: string;
  const patch = (values: Record<string, unknown>) => api(t, 'PATCH', '/api/v1/settings/windows_admin', { token: admin, body: values });
  const winrmTest = () => api(t, 'POST', `/api/v1/hosts/${ws}/actions/winrm-test`, { token: monitor });

  beforeAll(async () => {
    [home, elsewhere] = await Promise.all([startRecorder(), startRecorder()]);
    t = await startTestSac(kind, { SAC_WINDOWS_ADMIN_USERNAME: WIN_USER, SAC_WINDOWS_ADMIN_PASSWORD: ENV_PASSWORD });
    admin = await adminToken(t);
    monitor = await userToken(t, 'monitor');
    ws = await hostIdOf(t, await ingestEvent(t, { host: { hostname: 'WS-DEST', os_family: 'windows', ipv4: '127.0.0.1' }, source: { agent_instance_id: 'ws-dest' } }));
    expect((await patch({ username: WIN_USER, password: WIN_PASSWORD, transport: 'http', port: home.port })).status).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
    await home?.close();
    await elsewhere?.close();
  });

  it('refuses a port change without the password (REST and tRPC) and sends nothing to the new port', async () => {
    for (const body of [{ port: elsewhere.port }, { port: elsewhere.port, password: { set: true } }]) {
      const refused = await patch(body);
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'settings/secret_required', details: [SECRET_REQUIRED('password')] });
      expect(refused.body.error.message).toContain('password');
    }
    const viaTrpc = await trpc(t, admin, 'mutation', 'settings.update', { category: 'windows_admin', values: { port: elsewhere.port } });
    expect(viaTrpc.status).toBe(400);
    expect(viaTrpc.error.data).toMatchObject({ appCode: 'settings/secret_required' });

    expect((await winrmTest()).status).toBe(200);
    expect(home.received).toContain('TlRMTVNT'); // the NTLM NEGOTIATE went to the stored port
    expect(elsewhere.connections).toBe(0);
    expect((await t.sac.settings.get('windows_admin')).port).toBe(home.port);
  });

  it('refuses a change of username, transport or TLS verification without the password', async () => {
    for (const body of [{ username: 'CORP\\other' }, { transport: 'https' }, { transport: 'https', verify_tls: false, port: home.port }]) {
      const refused = await patch(body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.error.code).toBe('settings/secret_required');
    }
    // Fields that do not move the password need nothing; the same value is no change.
    expect((await patch({ codepage: 'cp866', port: home.port, transport: 'http' })).status).toBe(200);
  });

  it('refuses a reset that hands the environment password to a stored destination', async () => {
    const reset = (fields: string[]) => trpc(t, admin, 'mutation', 'settings.reset', { category: 'windows_admin', fields });
    const refused = await reset(['password']);
    expect(refused.status).toBe(400);
    expect(refused.error.data).toMatchObject({ appCode: 'settings/secret_required' });
    expect((await t.sac.settings.get('windows_admin')).password).toBe(WIN_PASSWORD);
    expect((await reset(['password', 'port', 'transport', 'username', 'codepage'])).status).toBe(200);
    expect(await t.sac.settings.get('windows_admin')).toMatchObject({ password: ENV_PASSWORD, port: null });
  });

  it('accepts the port change with the password given again, and only then connects there', async () => {
    expect((await patch({ username: WIN_USER, password: WIN_PASSWORD, transport: 'http', port: elsewhere.port })).status).toBe(200);
    expect((await winrmTest()).status).toBe(200);
    await waitFor('the NTLM NEGOTIATE on the new port', () => elsewhere.received.includes('TlRMTVNT'));
    expect(t.logs.join('\n')).not.toContain(WIN_PASSWORD);
  });
});

describe.skipIf(!sshdAvailable()).each(STORE_KINDS)('SSH credentials never follow a destination change on %s', (kind) => {
  let t: TestSac;
  let sshd: SshdPeer;
  let elsewhere: Recorder;
  let hostId: string;
  let monitor: string;
  let admin: string;
  const patch = (values: Record<string, unknown>) => api(t, 'PATCH', '/api/v1/settings/ssh_admin', { token: admin, body: values });
  const sshTest = async () => {
    const res = await api(t, 'POST', `/api/v1/hosts/${hostId}/actions/ssh-test`, { token: monitor });
    expect(res.status).toBe(200);
    return res.body as { ok: boolean; detail: string };
  };

  beforeAll(async () => {
    [sshd, elsewhere] = await Promise.all([startSshd(), startRecorder()]);
    t = await startTestSac(kind);
    admin = await adminToken(t);
    monitor = await userToken(t, 'monitor');
    hostId = await hostIdOf(
      t,
      await ingestEvent(t, {
        type: 'ssh.login.failed',
        source: { product: 'ssh-monitor', product_version: '1.1.2-ipset' },
        host: { hostname: 'sshdest', os_family: 'linux', ipv4: '127.0.0.1' },
      }),
    );
    expect((await patch({ username: sshd.sudoer.name, port: sshd.port, private_key: sshd.clientKey, known_hosts: sshd.knownHosts })).status).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
    await sshd?.stop();
    await elsewhere?.close();
  });

  it('refuses a port, known_hosts or username change without the key, and connects only where it was configured', async () => {
    for (const body of [
      { port: elsewhere.port },
      { port: elsewhere.port, private_key: { set: true } },
      { known_hosts: `[127.0.0.1]:${elsewhere.port} ${sshd.knownHosts.split(' ').slice(1).join(' ')}` },
      { username: sshd.plain.name },
    ]) {
      const refused = await patch(body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'settings/secret_required', details: [SECRET_REQUIRED('private_key')] });
    }
    const viaTrpc = await trpc(t, admin, 'mutation', 'settings.update', { category: 'ssh_admin', values: { port: elsewhere.port } });
    expect(viaTrpc.error.data).toMatchObject({ appCode: 'settings/secret_required' });

    expect(await sshTest()).toMatchObject({ ok: true });
    expect(elsewhere.connections).toBe(0);
  });

  it('asks for every stored SSH secret, so a kept password cannot follow a new key', async () => {
    expect((await patch({ private_key: sshd.clientKey, password: sshd.sudoer.password })).status).toBe(200);
    const refused = await patch({ port: elsewhere.port, private_key: sshd.clientKey });
    expect(refused.body.error).toMatchObject({ code: 'settings/secret_required', details: [SECRET_REQUIRED('password')] });
    expect((await patch({ password: null })).status).toBe(200);
  });

  it('accepts a port change with the key given again, and only then connects there', async () => {
    expect((await patch({ port: elsewhere.port, private_key: sshd.clientKey })).status).toBe(200);
    expect((await sshTest()).ok).toBe(false);
    await waitFor('the SSH connection on the new port', () => elsewhere.received.startsWith('SSH-2.0-'));
    expect((await patch({ port: sshd.port, private_key: sshd.clientKey })).status).toBe(200);
    expect(await sshTest()).toMatchObject({ ok: true });
  });

  it('never offers the password when a key is configured and the server refuses it', async () => {
    const refusedKey = utils.generateKeyPairSync('ed25519').private;
    expect((await patch({ private_key: refusedKey, password: sshd.sudoer.password })).status).toBe(200);
    const before = sshd.authLog().length;
    const result = await sshTest();
    expect(result).toMatchObject({ ok: false, detail: expect.stringContaining('authentication failed') });
    const attempts = await waitFor('sshd logging the refused key', () => {
      const lines = sshd.authLog().slice(before);
      return lines.some((l) => /Failed publickey for /.test(l)) ? lines : null;
    });
    expect(attempts.filter((l) => /password|keyboard-interactive/.test(l))).toEqual([]);

    // With no key configured, the password is the method and works.
    expect((await patch({ private_key: null, password: sshd.sudoer.password })).status).toBe(200);
    expect(await sshTest()).toMatchObject({ ok: true });
    expect(sshd.authLog().some((l) => new RegExp(`Accepted password for ${sshd.sudoer.name} `).test(l))).toBe(true);
  });
});
