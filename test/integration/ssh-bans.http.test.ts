import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BansService } from '../../daemon/src/bans/index.js';
import { adminToken, api, userToken } from '../helpers/auth.js';
import { TestClock, waitFor } from '../helpers/clock.js';
import { ingestEvent, startTestSac, type TestSac } from '../helpers/daemon.js';
import { STORE_KINDS } from '../helpers/stores.js';
import { startSudoRecorder, type SudoRecorder } from '../peers/ipset-recorder.js';
import { sshdAvailable, startSshd, type SshdPeer } from '../peers/sshd.peer.js';

// The sshd peer creates local users and a sudoers file: root only (as in CI, after setup-test-deps).
describe.skipIf(!sshdAvailable()).each(STORE_KINDS)('fleet SSH bans over a real sshd (%s)', (kind) => {
  let t: TestSac;
  let sshd: SshdPeer;
  let sudo: SudoRecorder;
  let admin: string;
  let monitor: string;
  const clock = new TestClock();
  const hostIds: Record<string, string> = {};
  // Documentation addresses, one per store so the two runs never share a kernel set entry.
  const attacker = kind === 'sqlite' ? '203.0.113.71' : '203.0.113.72';
  const attacker6 = kind === 'sqlite' ? '2001:db8::71' : '2001:db8::72';
  const calls = () => sudo.calls();

  const linuxEvent = (hostname: string, ipv4: string, overrides: Record<string, unknown> = {}) =>
    ingestEvent(t, { type: 'ssh.login.failed', source: { product: 'ssh-monitor', product_version: '1.1.2-ipset' }, host: { hostname, os_family: 'linux', ipv4 }, ...overrides });
  const ban = async (id: string) => (await api(t, 'GET', `/api/v1/bans/${id}`, { token: admin })).body;
  const openBans = async () => (await api(t, 'GET', '/api/v1/bans?status=open', { token: admin })).body.bans as { id: string; address: string; status: string }[];

  beforeAll(async () => {
    sudo = startSudoRecorder();
    sshd = await startSshd({ sessionPath: sudo.sessionPath });
    t = await startTestSac(kind, { SAC_BANS_EXPIRY_CHECK_SECONDS: '0.2' }, { clock });
    admin = await adminToken(t);
    monitor = await userToken(t, 'monitor');
    const ssh = await api(t, 'PATCH', '/api/v1/settings/ssh_admin', {
      token: admin,
      body: {
        username: sshd.sudoer.name,
        port: sshd.port,
        private_key: sshd.clientKey,
        // Two host records reach this one sshd: one pinned to its address, one to a name of it.
        known_hosts: sshd.knownHosts + sshd.knownHosts.replace('[127.0.0.1]', '[localhost]'),
      },
    });
    expect(ssh.status).toBe(200);
    for (const [hostname, ipv4] of [['web-1', '10.9.0.1'], ['web-2', '10.9.0.2'], ['web-3', '10.9.0.3']] as const) {
      const eventId = await linuxEvent(hostname, ipv4);
      hostIds[hostname] = (await api(t, 'GET', `/api/v1/events/${eventId}`, { token: admin })).body.host_id;
    }
    await ingestEvent(t, { type: 'rdp.login.failed', host: { hostname: 'win-1', os_family: 'windows', ipv4: '10.9.0.9' } });
    for (const [hostname, address] of [['web-1', '127.0.0.1'], ['web-2', 'localhost']] as const) {
      const pin = await api(t, 'PUT', `/api/v1/hosts/${hostIds[hostname]}/action-address`, { token: admin, body: { address } });
      expect(pin.status).toBe(200);
    }
    const policy = await api(t, 'PATCH', '/api/v1/settings/ssh_bans', { token: admin, body: { propagation: 'suggest', default_duration_s: 3600, never_ban: ['198.51.100.0/24'] } });
    expect(policy.status).toBe(200);
  });

  afterAll(async () => {
    await t?.close();
    await sshd?.stop();
    sudo?.stop([
      ['ssh_monitor_ban', attacker],
      ['ssh_monitor_ban_v6', attacker6],
    ]);
  });

  it('proposes one ban when two hosts report ssh.ip.banned for an address, and applies it on both sshd hosts', async () => {
    const reported = await linuxEvent('web-1', '10.9.0.1', { type: 'ssh.ip.banned', details: { ip_address: attacker } });
    const proposal = await waitFor('a proposed ban', async () => (await openBans()).find((b) => b.address === attacker));
    expect(proposal).toMatchObject({ status: 'proposed', source: 'propagation', event_id: reported, hosts: [] });
    await linuxEvent('web-2', '10.9.0.2', { type: 'ssh.ip.banned', details: { ip_address: attacker } });
    await linuxEvent('web-2', '10.9.0.2', { type: 'ssh.bruteforce.mass', details: { ip_address: attacker } });
    // The address's open ban holds its slot in the store: later reports open no second one.
    expect((await openBans()).filter((b) => b.address === attacker)).toHaveLength(1);
    expect(calls()).toEqual([]);

    expect((await api(t, 'POST', `/api/v1/bans/${proposal.id}/apply`, { token: monitor })).status).toBe(403);
    const applied = await api(t, 'POST', `/api/v1/bans/${proposal.id}/apply`, { token: admin });
    expect(applied.status).toBe(200);
    expect(applied.body).toMatchObject({ status: 'active', address: attacker, set_name: 'ssh_monitor_ban', duration_s: 3600, previous_bans: 0, applied_by: t.adminUsername });
    const byHost = Object.fromEntries((applied.body.hosts as { hostname: string }[]).map((h) => [h.hostname, h]));
    expect(Object.keys(byHost).sort()).toEqual(['web-1', 'web-2', 'web-3']);
    expect(byHost['web-1']).toMatchObject({ outcome: 'applied', address: '127.0.0.1', detail: null });
    expect(byHost['web-2']).toMatchObject({ outcome: 'applied', address: 'localhost', detail: null });
    // web-3 was never pinned and shares its observed address: SAC sends no credentials there.
    expect(byHost['web-3']).toMatchObject({ outcome: 'unverified', address: null });
    expect(Date.parse(applied.body.expires_at) - Date.parse(applied.body.applied_at)).toBe(3_600_000);

    // Each host's session created the set as ssh-monitor does and added the address for the ban's time.
    const lines = calls();
    const adds = lines.filter((l) => l.includes(' ipset add '));
    expect(adds).toHaveLength(2);
    for (const line of adds) expect(line).toMatch(new RegExp(`^\\d+ -n ipset add ssh_monitor_ban ${attacker.replace(/\./g, '\\.')} timeout (3600|3599) -exist$`));
    expect(new Set(adds.map((l) => l.split(' ')[0])).size).toBe(2);
    expect(lines.filter((l) => l.endsWith(' -n ipset create ssh_monitor_ban hash:ip family inet timeout 0 -exist'))).toHaveLength(2);
    if (sudo.kernel) expect(sudo.inSet('ssh_monitor_ban', attacker)).toBe(true);

    const again = await api(t, 'POST', `/api/v1/bans/${proposal.id}/apply`, { token: admin });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('ssh_ban/not_proposed');
    const twice = await api(t, 'POST', '/api/v1/bans', { token: admin, body: { address: attacker } });
    expect(twice.status).toBe(409);
    expect(twice.body.error.code).toBe('ssh_ban/already_banned');
  });

  it('marks the ban expired by the clock, and a repeat offender gets twice the time; unban removes it from the set', async () => {
    const first = (await openBans()).find((b) => b.address === attacker)!;
    clock.advance(3_601_000);
    await waitFor('the ban to expire', async () => (await ban(first.id)).status === 'expired');
    expect((await ban(first.id)).ended_at).toBe((await ban(first.id)).expires_at);

    const before = calls().length;
    const again = await api(t, 'POST', '/api/v1/bans', { token: admin, body: { address: attacker, duration_s: 600, target: { kind: 'hosts', host_ids: [hostIds['web-1']] }, reason: 'back again' } });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ status: 'active', source: 'manual', duration_s: 1200, previous_bans: 1, reason: 'back again', hosts: [{ hostname: 'web-1', outcome: 'applied' }] });
    expect(calls().slice(before).filter((l) => l.includes(' ipset add '))).toEqual([expect.stringMatching(/ -n ipset add ssh_monitor_ban \S+ timeout (1200|1199) -exist$/)]);

    const unban = await api(t, 'POST', `/api/v1/bans/${again.body.id}/unban`, { token: admin });
    expect(unban.status).toBe(200);
    expect(unban.body).toMatchObject({ status: 'unbanned', ended_by: t.adminUsername, hosts: [{ hostname: 'web-1', outcome: 'removed' }] });
    expect(calls().at(-1)).toMatch(new RegExp(`^\\d+ -n ipset del ssh_monitor_ban ${attacker.replace(/\./g, '\\.')} -exist$`));
    if (sudo.kernel) expect(sudo.inSet('ssh_monitor_ban', attacker)).toBe(false);
    expect((await api(t, 'POST', `/api/v1/bans/${again.body.id}/unban`, { token: admin })).body.error.code).toBe('ssh_ban/not_active');
  });

  it('bans an IPv6 address in the v6 set, printed canonically', async () => {
    const res = await api(t, 'POST', '/api/v1/bans', { token: admin, body: { address: attacker6.replace('::', ':0:0:0:0:0:').toUpperCase(), target: { kind: 'hosts', host_ids: [hostIds['web-2']] } } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ address: attacker6, family: 6, set_name: 'ssh_monitor_ban_v6', hosts: [{ outcome: 'applied' }] });
    expect(calls().at(-1)).toMatch(new RegExp(`-n ipset add ssh_monitor_ban_v6 ${attacker6} timeout \\d+ -exist$`));
    if (sudo.kernel) expect(sudo.inSet('ssh_monitor_ban_v6', attacker6)).toBe(true);
    expect((await api(t, 'POST', `/api/v1/bans/${res.body.id}/unban`, { token: admin })).status).toBe(200);
  });

  it('refuses never-ban addresses and anything but one address with a clear 400, touching no host', async () => {
    const before = calls().length;
    const cases: [unknown, string, RegExp][] = [
      [{ address: '198.51.100.7' }, 'ssh_ban/never_ban', /198\.51\.100\.7 is never banned: it is the never-ban list \(198\.51\.100\.0\/24\)/],
      [{ address: '127.0.0.1' }, 'ssh_ban/never_ban', /address of the SAC server/],
      [{ address: '203.0.113.0/24' }, 'ssh_ban/invalid_address', /range/],
      [{ address: "203.0.113.9' ; reboot '" }, 'ssh_ban/invalid_address', /not an IPv4 or IPv6 address/],
      [{ address: '$(reboot)' }, 'ssh_ban/invalid_address', /not an IPv4 or IPv6 address/],
      [{ address: '224.0.0.1' }, 'ssh_ban/invalid_address', /multicast/],
      [{ address: '203.0.113.9', target: { kind: 'hosts', host_ids: [hostIds['web-1'], 'nope'] } }, 'ssh_ban/bad_target', /nope/],
      [{ address: '203.0.113.9', event_id: 'x' }, 'request/invalid', /exactly one/],
      [{}, 'request/invalid', /exactly one/],
    ];
    for (const [body, code, message] of cases) {
      const res = await api(t, 'POST', '/api/v1/bans', { token: admin, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe(code);
      expect(JSON.stringify(res.body.error)).toMatch(message);
    }
    expect((await api(t, 'POST', '/api/v1/bans', { token: monitor, body: { address: '203.0.113.9' } })).status).toBe(403);
    expect(calls().length).toBe(before);
    const bad = await api(t, 'PATCH', '/api/v1/settings/ssh_bans', { token: admin, body: { never_ban: ['10.0.0.0/33'] } });
    expect(bad.status).toBe(400);
  });

  it('bans the source address of an event and of a problem; records each step in the audit log', async () => {
    const eventId = await linuxEvent('web-2', '10.9.0.2', { details: { ip_address: '::ffff:203.0.113.80' } });
    const fromEvent = await api(t, 'POST', '/api/v1/bans', { token: admin, body: { event_id: eventId, target: { kind: 'hosts', host_ids: [hostIds['web-1']] } } });
    expect(fromEvent.status).toBe(201);
    expect(fromEvent.body).toMatchObject({ address: '203.0.113.80', source: 'event', event_id: eventId });
    expect((await api(t, 'POST', `/api/v1/bans/${fromEvent.body.id}/unban`, { token: admin })).status).toBe(200);

    // web-3's failed login opened a problem; its event names the agents' sample source address.
    const problems = (await api(t, 'GET', '/api/v1/problems?limit=100', { token: admin })).body.items as { id: string; hostname: string; type: string }[];
    const problem = problems.find((p) => p.hostname === 'web-3' && p.type === 'ssh.login.failed');
    expect(problem, JSON.stringify(problems.map((p) => [p.hostname, p.type]))).toBeDefined();
    const fromProblem = await api(t, 'POST', '/api/v1/bans', { token: admin, body: { problem_id: problem!.id, target: { kind: 'hosts', host_ids: [hostIds['web-1']] } } });
    expect(fromProblem.status).toBe(201);
    expect(fromProblem.body).toMatchObject({ address: '203.0.113.45', source: 'problem', problem_id: problem!.id, previous_bans: 0 });
    expect((await api(t, 'POST', `/api/v1/bans/${fromProblem.body.id}/unban`, { token: admin })).status).toBe(200);
    const missing = await api(t, 'POST', '/api/v1/bans', { token: admin, body: { problem_id: 'no-such-problem' } });
    expect(missing.status).toBe(404);

    const res = await api(t, 'GET', '/api/v1/audit?action=ssh_ban.&limit=100', { token: admin });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const audit = res.body.entries as { action: string; details: Record<string, unknown> }[];
    const actions = new Set(audit.map((e) => e.action));
    for (const a of ['ssh_ban.proposed', 'ssh_ban.applied', 'ssh_ban.expired', 'ssh_ban.unbanned']) expect(actions).toContain(a);
    expect(audit.find((e) => e.action === 'ssh_ban.applied')!.details).toMatchObject({ hosts: expect.any(Object) });
  });
});

// Two daemons on one MongoDB store, the policy automatic: two hosts report the same address to
// different daemons at once, and the address is banned once, each host changed once.
describe.skipIf(!sshdAvailable())('automatic propagation with two daemons on one store', () => {
  let a: TestSac;
  let b: TestSac;
  let sshd: SshdPeer;
  let sudo: SudoRecorder;
  let admin: string;
  const attacker = '203.0.113.73';
  const settled: Promise<unknown>[] = [];
  const propagated = new Set<string>();

  beforeAll(async () => {
    sudo = startSudoRecorder();
    sshd = await startSshd({ sessionPath: sudo.sessionPath });
    const shared = {
      SAC_MONGODB_DB: `sac_bans_${randomBytes(4).toString('hex')}`,
      SAC_MASTER_KEY: 'ssh-bans-test-master-key-0123456789abcdef',
      SAC_BOOTSTRAP_API_KEY: `bans_agent_key_${randomBytes(8).toString('hex')}`,
    };
    a = await startTestSac('mongodb', shared);
    b = await startTestSac('mongodb', shared);
    admin = await adminToken(a);
    const ssh = { username: sshd.sudoer.name, port: sshd.port, private_key: sshd.clientKey, known_hosts: sshd.knownHosts + sshd.knownHosts.replace('[127.0.0.1]', '[localhost]') };
    expect((await api(a, 'PATCH', '/api/v1/settings/ssh_admin', { token: admin, body: ssh })).status).toBe(200);
    for (const [hostname, address] of [['web-1', '127.0.0.1'], ['web-2', 'localhost']] as const) {
      const eventId = await ingestEvent(a, { source: { product: 'ssh-monitor', product_version: '1.1.2-ipset' }, host: { hostname, os_family: 'linux', ipv4: '10.9.1.1' } });
      const hostId = (await api(a, 'GET', `/api/v1/events/${eventId}`, { token: admin })).body.host_id;
      expect((await api(a, 'PUT', `/api/v1/hosts/${hostId}/action-address`, { token: admin, body: { address } })).status).toBe(200);
    }
    expect((await api(a, 'PATCH', '/api/v1/settings/ssh_bans', { token: admin, body: { propagation: 'automatic' } })).status).toBe(200);
    // Every propagation run, on either daemon, is awaited before the counts are read.
    const propagate = BansService.prototype.propagate;
    vi.spyOn(BansService.prototype, 'propagate').mockImplementation(function (this: BansService, events) {
      const run = propagate.call(this, events);
      settled.push(run.catch(() => undefined));
      for (const e of events) propagated.add(e.event.event_id);
      return run;
    });
  });

  afterAll(async () => {
    vi.restoreAllMocks();
    await a?.close();
    await b?.close();
    await sshd?.stop();
    sudo?.stop([['ssh_monitor_ban', attacker]]);
  });

  it('bans the address once, each host once', async () => {
    const report = (hostname: string, type: string) => ({ type, source: { product: 'ssh-monitor' as const, product_version: '1.1.2-ipset' }, host: { hostname, os_family: 'linux' as const, ipv4: '10.9.1.1' }, details: { ip_address: attacker } });
    const ids = await Promise.all([ingestEvent(a, report('web-1', 'ssh.ip.banned')), ingestEvent(b, report('web-2', 'ssh.ip.banned')), ingestEvent(b, report('web-1', 'ssh.bruteforce.mass'))]);
    await waitFor('the three reports handed to the propagation policy', () => ids.every((id) => propagated.has(id)));
    await Promise.all(settled);
    const bans = (await api(b, 'GET', '/api/v1/bans', { token: admin })).body.bans as { address: string; status: string; hosts: { outcome: string }[] }[];
    expect(bans).toHaveLength(1);
    expect(bans[0]).toMatchObject({ address: attacker, status: 'active', source: 'propagation', applied_by: null, hosts: [{ outcome: 'applied' }, { outcome: 'applied' }] });
    expect(sudo.calls().filter((l) => l.includes(` ipset add ssh_monitor_ban ${attacker} `))).toHaveLength(2);
    if (sudo.kernel) expect(sudo.inSet('ssh_monitor_ban', attacker)).toBe(true);
  });
});
