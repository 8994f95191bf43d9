import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWinRmClient, type WinRmClientOptions } from '../../daemon/src/winrm/index.js';
import { AppError } from '../../daemon/src/errors.js';
import { mapError } from '../../daemon/src/http/error-map.js';
import { startWinRmPeer, type WinRmPeer } from '../peers/winrm/winrm-peer.js';

const USER = 'CORP\\admin';
const PASSWORD = 'Adm1n-pass';

async function rejection(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

describe.each([
  { transport: 'http' as const, lang: 'en' as const },
  { transport: 'https' as const, lang: 'ru' as const },
])('SAC WinRM client over $transport ($lang host)', ({ transport, lang }) => {
  let peer: WinRmPeer;
  let base: WinRmClientOptions;

  beforeAll(async () => {
    peer = await startWinRmPeer({ user: USER, password: PASSWORD, https: transport === 'https', lang });
    base = {
      username: USER,
      password: PASSWORD,
      transport,
      port: peer.port,
      // HTTPS verifies the certificate: the peer's self-signed one is given as the trusted CA.
      ca: peer.certPem ?? undefined,
      codepage: lang === 'ru' ? 866 : 437,
      timeoutMs: 15_000,
    };
  });
  afterAll(() => peer.stop());

  it('lists sessions with qwinsta, parsed and raw', async () => {
    const list = await createWinRmClient(base).listSessions('127.0.0.1');
    expect(list.host).toBe('127.0.0.1');
    expect(list.raw).toContain(lang === 'ru' ? 'ПОЛЬЗОВАТЕЛЬ' : 'USERNAME');
    expect(list.sessions).toContainEqual({ session_name: 'rdp-tcp#12', username: 'jdoe', id: 2, state: 'Active', type: 'rdpwd', device: '' });
    expect(list.sessions).toContainEqual({ session_name: 'rdp-tcp#13', username: lang === 'ru' ? 'Иванов' : 'ivanov', id: 3, state: 'Active', type: 'rdpwd', device: '' });
    expect(list.sessions).toContainEqual({ session_name: 'console', username: lang === 'ru' ? 'Администратор' : 'Administrator', id: 1, state: 'Active', type: '', device: '' });
    expect(list.sessions.map((s) => s.id)).toEqual([0, 1, 2, 3, 4, 65536]);
  });

  it('logs a session off and the next listing no longer has it', async () => {
    const client = createWinRmClient(base);
    const res = await client.logoff('127.0.0.1', 4);
    expect(res).toMatchObject({ exitCode: 0, stdout: 'Logging off session ID 4\r\n', host: '127.0.0.1' });
    const after = await client.listSessions('127.0.0.1');
    expect(after.sessions.map((s) => s.id)).not.toContain(4);
    expect(after.sessions.map((s) => s.id)).toContain(2);
  });

  it('reports a logoff of a session that does not exist as command_failed', async () => {
    const err = await rejection(createWinRmClient(base).logoff('127.0.0.1', 777));
    expect(err.code).toBe('winrm/command_failed');
    expect(err.details).toMatchObject({ exit_code: 1, stderr: 'Session ID 777 not found\r\n' });
  });

  it('rejects a wrong password as auth_failed, for DOMAIN\\user and user@domain', async () => {
    for (const username of [USER, 'admin@CORP']) {
      const err = await rejection(createWinRmClient({ ...base, username, password: 'wrong' }).listSessions('127.0.0.1'));
      expect(err.code).toBe('winrm/auth_failed');
      expect(JSON.stringify(err.details)).not.toContain('wrong');
    }
  });

  it('accepts the administrator as user@domain and finds it in the local Administrators group', async () => {
    const res = await createWinRmClient({ ...base, username: 'admin@CORP' }).test('127.0.0.1');
    expect(res).toMatchObject({ ok: true, detail: `Connected to 127.0.0.1 as ${USER.toLowerCase()}, a local administrator` });
  });

  it('runs PowerShell through -EncodedCommand and the host receives the script intact', async () => {
    const script = "Write-Output 'обновление агента'; exit 0";
    const res = await createWinRmClient(base).runPowerShell('127.0.0.1', script);
    expect(res.exitCode).toBe(0);
    expect(peer.recordedScripts()).toContain(script);
  });

  it('keeps receiving while a long command runs past the Receive operation timeout', async () => {
    // 9 s budget → 3 s OperationTimeout; the command runs 4 s, so the first Receive times out.
    const res = await createWinRmClient({ ...base, timeoutMs: 9_000 }).run('127.0.0.1', 'ping', ['-n', '5', '127.0.0.1']);
    expect(res.exitCode).toBe(0);
    expect(res.stdout.match(/Reply from 127\.0\.0\.1/g)).toHaveLength(5);
    expect(res.durationMs).toBeGreaterThanOrEqual(3_900);
  });

  it('gives up on a command that outlasts the budget with winrm/timeout', async () => {
    const started = Date.now();
    const err = await rejection(createWinRmClient({ ...base, timeoutMs: 3_000 }).run('127.0.0.1', 'ping', ['-n', '30', '127.0.0.1']));
    expect(err.code).toBe('winrm/timeout');
    expect(Date.now() - started).toBeLessThan(6_000);
  });

  it('refuses a PowerShell script too long for a command line before connecting', async () => {
    const err = await rejection(createWinRmClient(base).runPowerShell('127.0.0.1', 'x'.repeat(12_001)));
    expect(err.code).toBe('request/too_large');
  });

  it('returns a failing command exit code and stderr instead of throwing', async () => {
    const res = await createWinRmClient(base).run('127.0.0.1', 'nosuchcommand');
    expect(res.exitCode).toBe(1);
    expect(res.stderr).toContain("'nosuchcommand' is not recognized");
  });

  it('falls back to the next address when the first is unreachable', async () => {
    const res = await createWinRmClient(base).test(['winrm-host.invalid', '127.0.0.1']);
    expect(res.ok).toBe(true);
    expect(res.detail).toContain('127.0.0.1');
  });
});

describe('SAC WinRM client failures', () => {
  let httpsPeer: WinRmPeer;
  let hang: Server;
  const held: Socket[] = [];

  beforeAll(async () => {
    httpsPeer = await startWinRmPeer({ user: USER, password: PASSWORD, https: true });
    // A host that accepts the connection and never answers.
    hang = createServer((s) => held.push(s));
    await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r));
  });
  afterAll(async () => {
    held.forEach((s) => s.destroy());
    await new Promise((r) => hang.close(r));
    await httpsPeer.stop();
  });

  it('refuses an untrusted certificate unless verify_tls is off', async () => {
    const opts = { username: USER, password: PASSWORD, transport: 'https' as const, port: httpsPeer.port };
    const err = await rejection(createWinRmClient(opts).listSessions('127.0.0.1'));
    expect(err.code).toBe('winrm/unreachable');
    expect(err.message).toMatch(/certificate/);
    const list = await createWinRmClient({ ...opts, verifyTls: false }).listSessions('127.0.0.1');
    expect(list.sessions.length).toBeGreaterThan(0);
  });

  it('reports a closed port as unreachable, quickly', async () => {
    const port = await freePort();
    const err = await rejection(createWinRmClient({ username: USER, password: PASSWORD, transport: 'http', port }).listSessions('127.0.0.1'));
    expect(err.code).toBe('winrm/unreachable');
    // Refused, not retried until the budget ran out (that would be winrm/timeout).
    expect(err.details).toMatchObject({ host: '127.0.0.1', port, reason: 'ECONNREFUSED' });
    const test = await createWinRmClient({ username: USER, password: PASSWORD, transport: 'http', port }).test('127.0.0.1');
    expect(test).toMatchObject({ ok: false, code: 'winrm/unreachable' });
  });

  it('gives up on a host that never answers with winrm/timeout after the budget', async () => {
    const port = (hang.address() as AddressInfo).port;
    const started = Date.now();
    const err = await rejection(createWinRmClient({ username: USER, password: PASSWORD, transport: 'http', port, timeoutMs: 600 }).listSessions('127.0.0.1'));
    const elapsed = Date.now() - started;
    expect(err.code).toBe('winrm/timeout');
    expect(elapsed).toBeGreaterThanOrEqual(550);
    // The budget given, not the 30 s default.
    expect(elapsed).toBeLessThan(30_000);
  });

  it('reports a server that will not seal NTLM messages over HTTP as encryption_refused', async () => {
    // A challenge offering NTLM without SEAL and key exchange, as a misconfigured server might.
    const challenge = Buffer.alloc(56);
    Buffer.from('NTLMSSP\0', 'latin1').copy(challenge, 0);
    challenge.writeUInt32LE(2, 8);
    challenge.writeUInt32LE(0x00898215, 20);
    challenge.writeUInt32LE(56, 44);
    const server = createHttpServer((req, res) => {
      req.resume();
      res.writeHead(401, { 'WWW-Authenticate': `Negotiate ${challenge.toString('base64')}` }).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as AddressInfo).port;
      const err = await rejection(createWinRmClient({ username: USER, password: PASSWORD, transport: 'http', port }).listSessions('127.0.0.1'));
      expect(err.code).toBe('winrm/encryption_refused');
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('fails the access test of an account that is not a local administrator', async () => {
    const peer = await startWinRmPeer({ user: USER, password: PASSWORD, nonAdmin: true });
    try {
      const res = await createWinRmClient({ username: USER, password: PASSWORD, transport: 'http', port: peer.port }).test('127.0.0.1');
      expect(res).toMatchObject({ ok: false, code: 'winrm/auth_failed', detail: `${USER.toLowerCase()} reached 127.0.0.1 but is not in its local Administrators group` });
    } finally {
      await peer.stop();
    }
  });

  it('refuses to build a client without an administrator', () => {
    expect(() => createWinRmClient({ username: '', password: '', transport: 'https' })).toThrow(expect.objectContaining({ code: 'winrm/not_configured' }));
  });

  it('maps every winrm error code to its HTTP status', () => {
    const status = (code: string): number => mapError(new AppError(code, 'x')).status;
    expect(['winrm/unreachable', 'winrm/auth_failed', 'winrm/encryption_refused', 'winrm/command_failed', 'winrm/bad_response'].map(status)).toEqual([502, 502, 502, 502, 502]);
    expect(status('winrm/timeout')).toBe(504);
    expect(status('winrm/not_configured')).toBe(409);
  });
});
