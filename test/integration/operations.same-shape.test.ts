import { createECDH, randomBytes, randomUUID } from 'node:crypto';
import * as OTPAuth from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyOperation } from '../../daemon/src/http/index.js';
import { adminToken, api, createUser, login } from '../helpers/auth.js';
import { ManualClock, waitFor } from '../helpers/clock.js';
import { ingestEvent, isoAt, startTestSac, type TestSac } from '../helpers/daemon.js';
import { STORE_KINDS } from '../helpers/stores.js';
import { startGitRepos, type GitReposPeer } from '../peers/git-repos.peer.js';
import { trpc } from '../peers/trpc.js';
import { restRequest } from '../helpers/rest-request.js';

const NOW = Date.parse('2026-06-03T12:00:00.000Z');
const MIN = 60_000;

type Transport = 'rest' | 'trpc';
/** One call of an operation: its input and the caller's token. */
interface Call {
  input?: Record<string, unknown>;
  token: string | null;
  /**
   * The error both transports must answer, for an operation that cannot succeed here without an
   * outside peer (a WinRM or SSH host): the REST status and the app error code.
   */
  fails?: { status: number; code: string };
}
/** How to call an operation; asked once per transport, so a mutation acts on its own target each time. */
type Case = (via: Transport) => Promise<Call> | Call;

/** The structure of a value: object keys and element shapes kept, every leaf reduced to its type. */
function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shapeOf);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shapeOf(v)]));
  return value === null ? 'null' : typeof value;
}

describe.each(STORE_KINDS)('every operation answers the same over REST and tRPC on %s', (kind) => {
  let t: TestSac;
  let admin: string;
  let monitor: string;
  let monitorId: string;
  const clock = new ManualClock(NOW);
  const problems: string[] = [];
  const hosts: Record<string, string> = {};
  const eventIds: string[] = [];
  let reportId = '';
  /** A Windows host whose agent takes remote actions (no WinRM here: every action is queued, 202), and a sign-in event on it naming session 2. */
  let agentHost = '';
  let rdpEvent = '';
  let commandId = '';
  let windowId = '';
  /**
   * The agent products with their version in git, each with one outdated host: one product per transport.
   * The git version is the one every other host here runs (the events' default), so they are up to date.
   */
  const PRODUCTS = ['rdp-login-monitor', 'ssh-monitor'] as const;
  const outdatedHosts: string[] = [];
  let repos: GitReposPeer | undefined;

  /** A fresh monitor signed in: for operations that change or end their caller's session or password. */
  async function freshMonitor() {
    const u = await createUser(t, 'monitor');
    return { password: u.password, token: (await login(t, u.user.username, u.password)).body.token as string };
  }
  /** A fresh monitor's id: for operations on a user account. */
  const freshUserId = async () => (await createUser(t, 'monitor')).user.id;
  /** A fresh monitor with two-factor sign-in on, and its recovery codes. */
  async function enrolledMonitor() {
    const u = await createUser(t, 'monitor');
    const token = (await login(t, u.user.username, u.password)).body.token as string;
    const code = totpFor((await api(t, 'POST', '/api/v1/auth/totp/enroll', { token })).body.secret);
    const confirmed = await api(t, 'POST', '/api/v1/auth/totp/confirm', { token, body: { code } });
    return { ...u, token, recovery: confirmed.body.recovery_codes as string[] };
  }
  /** The current code of a TOTP secret. */
  const totpFor = (secret: string) =>
    new OTPAuth.TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: OTPAuth.Secret.fromBase32(secret) }).generate({ timestamp: clock.now() });
  /** A sign-in ticket of a fresh monitor who must enrol a second factor (required for all just for that sign-in). */
  async function enrolTicket() {
    const u = await createUser(t, 'monitor');
    await api(t, 'PATCH', '/api/v1/settings/security', { token: admin, body: { require_totp: 'all' } });
    const challenge = await login(t, u.user.username, u.password);
    await api(t, 'PATCH', '/api/v1/settings/security', { token: admin, body: { require_totp: 'none' } });
    return challenge.body.ticket as string;
  }
  /** An enrollment code issued to the monitor (the REST route of it builds the URL from the request). */
  const issueCode = async () => (await api(t, 'POST', '/api/v1/mobile/enrollment-codes', { token: admin, body: { user_id: monitorId } })).body as { id: string; code: string };
  /** A device enrolled for the monitor. */
  async function deviceId() {
    const body = { code: (await issueCode()).code, device_uuid: randomUUID(), name: 'On-call phone', platform: 'android' };
    return (await api(t, 'POST', '/api/v1/mobile/enroll', { body })).body.device.id as string;
  }
  /** A push subscription of a browser (push.example stands for a push service; nothing is sent here). */
  const pushSubscription = () => ({
    endpoint: `https://push.example/${randomUUID()}`,
    keys: { p256dh: createECDH('prime256v1').generateKeys('base64url'), auth: randomBytes(16).toString('base64url') },
  });
  /** A maintenance window of a host that sends nothing, starting now. */
  const windowFields = (reason: string) => ({ hosts: ['QUIET'], starts_at: isoAt(NOW), duration_minutes: 60, reason });
  const createWindow = async () => (await api(t, 'POST', '/api/v1/maintenance-windows', { token: admin, body: windowFields('planned') })).body.id as string;
  /** A host group of ALPHA and the hosts named BR*. */
  const createGroup = async (name: string) =>
    (await api(t, 'POST', '/api/v1/groups', { token: admin, body: { name, host_ids: [hosts.ALPHA], rules: { host_patterns: ['BR*'] } } })).body.id as string;
  let readGroup: Promise<string> | undefined;
  /** The same target picked by transport: the first for REST, the second for tRPC. */
  const pick = <T,>(via: Transport, pair: readonly T[]) => pair[via === 'rest' ? 0 : 1];

  beforeAll(async () => {
    t = await startTestSac(kind, { SAC_SILENCE_SCAN_SECONDS: '3600', SAC_PUSH_HOSTS: 'push.example' }, { clock });
    admin = await adminToken(t);
    monitor = (await freshMonitor()).token;
    monitorId = (await api(t, 'GET', '/api/v1/auth/me', { token: monitor })).body.user.id;
    for (const [i, hostname] of ['ALPHA', 'BRAVO', 'CHARLIE', 'DOOMED-1', 'DOOMED-2'].entries()) {
      eventIds.push(await ingestEvent(t, { host: { hostname }, type: 'rdp.login.failed', severity: 'high', title: 'failed', occurred_at: isoAt(NOW - (10 - i) * MIN) }));
    }
    for (const hostname of ['ALPHA', 'BRAVO']) {
      problems.push(((await api(t, 'GET', `/api/v1/problems?host=${hostname}`, { token: admin })).body.items as { id: string }[])[0].id);
    }
    for (const h of (await api(t, 'GET', '/api/v1/hosts', { token: admin })).body.items as { id: string; hostname: string }[]) hosts[h.hostname] = h.id;
    reportId = (await api(t, 'POST', '/api/v1/reports', { token: admin })).body.report.id;
    rdpEvent = await ingestEvent(t, {
      host: { hostname: 'WS-AGENT', os_family: 'windows' },
      source: { agent_instance_id: 'ws-agent' },
      type: 'rdp.login.success',
      severity: 'info',
      title: 'signed in',
      occurred_at: isoAt(NOW - MIN),
      details: { session_id: 2 },
    });
    agentHost = (await api(t, 'GET', `/api/v1/events/${rdpEvent}`, { token: admin })).body.host_id;
    commandId = (await api(t, 'GET', `/api/v1/hosts/${agentHost}/sessions`, { token: admin })).body.command.id;
    windowId = await createWindow();
    repos = await startGitRepos();
    for (const [i, product] of PRODUCTS.entries()) {
      repos.commit(product, { 'version.txt': '2.1.5-SAC\r\n' }, 'v2.1.5-SAC');
      repos.commit(product, { 'version.txt': '2.1.7-SAC\r\n' }, 'v2.1.7-SAC');
      const event = await ingestEvent(t, {
        host: { hostname: `OUTDATED-${i}`, os_family: 'windows' },
        source: { product, product_version: '2.1.6-SAC', agent_instance_id: `outdated-${i}` },
        occurred_at: isoAt(NOW - MIN),
      });
      outdatedHosts.push((await api(t, 'GET', `/api/v1/events/${event}`, { token: admin })).body.host_id);
    }
    const gitRepos = PRODUCTS.map((product) => ({ product, url: repos!.fileUrl(product) }));
    await api(t, 'PATCH', '/api/v1/settings/git_repos', { token: admin, body: { repos: gitRepos } });
    await api(t, 'PATCH', '/api/v1/settings/agent_updates', { token: admin, body: { enabled: true, max_parallel: 1 } });
    await api(t, 'POST', '/api/v1/agents/versions/refresh', { token: admin });
    // Something to list: an update job, a device and the code it enrolled with.
    await api(t, 'POST', `/api/v1/hosts/${outdatedHosts[0]}/agent-update`, { token: admin });
    await deviceId();
  });
  afterAll(async () => {
    await t?.close();
    await repos?.close();
  });

  const CASES: Record<string, Case> = {
    'auth.login': () => ({ input: { username: t.adminUsername, password: t.adminPassword }, token: null }),
    'auth.me': () => ({ token: monitor }),
    'auth.renew': () => ({ token: monitor }),
    'auth.logout': async () => ({ token: (await freshMonitor()).token }),
    'auth.changePassword': async () => {
      const u = await freshMonitor();
      return { input: { current_password: u.password, new_password: `${u.password}-Next-9` }, token: u.token };
    },
    'users.list': () => ({ token: admin }),
    'users.create': (via) => ({ input: { username: `same-shape-${via}`, password: 'Same-shape-pass-1', role: 'monitor' }, token: admin }),
    'users.update': async () => ({ input: { id: await freshUserId(), patch: { display_name: 'Renamed' } }, token: admin }),
    'users.delete': async () => ({ input: { id: await freshUserId() }, token: admin }),
    'apiKeys.list': () => ({ token: admin }),
    'apiKeys.create': (via) => ({ input: { label: `same-shape ${via}` }, token: admin }),
    'apiKeys.revoke': async () => ({ input: { id: (await api(t, 'POST', '/api/v1/api-keys', { token: admin, body: { label: 'to revoke' } })).body.api_key.id }, token: admin }),
    'settings.list': () => ({ token: admin }),
    'settings.get': () => ({ input: { category: 'telegram' }, token: admin }),
    'settings.update': (via) => ({ input: { category: 'telegram', values: { chat_ids: [pick(via, ['-100111', '-100222'])] } }, token: admin }),
    'audit.list': () => ({ input: { limit: 20 }, token: admin }),
    'events.list': () => ({ input: { limit: 10 }, token: monitor }),
    'events.byId': () => ({ input: { id: eventIds[0] }, token: monitor }),
    'hosts.list': () => ({ input: { sort: 'hostname', outdated: 'false' }, token: monitor }),
    'hosts.byId': () => ({ input: { id: hosts.ALPHA }, token: monitor }),
    'hosts.pinAddress': (via) => ({ input: { id: hosts[pick(via, ['ALPHA', 'BRAVO'])], pin: { address: pick(via, ['192.0.2.10', '192.0.2.11']) } }, token: admin }),
    'hosts.unpinAddress': (via) => ({ input: { id: hosts[pick(via, ['ALPHA', 'BRAVO'])] }, token: admin }),
    'hosts.delete': (via) => ({ input: { id: hosts[pick(via, ['DOOMED-1', 'DOOMED-2'])] }, token: admin }),
    'problems.list': () => ({ input: { status: 'open,acknowledged,resolved' }, token: monitor }),
    'problems.byId': () => ({ input: { id: problems[0] }, token: monitor }),
    'problems.acknowledge': (via) => ({ input: { id: pick(via, problems), comment: 'seen' }, token: monitor }),
    'problems.resolve': (via) => ({ input: { id: pick(via, problems) }, token: monitor }),
    'problems.reopen': (via) => ({ input: { id: pick(via, problems) }, token: monitor }),
    'problems.assign': (via) => ({ input: { id: pick(via, problems), assignee_id: null }, token: monitor }),
    'problems.assignees': () => ({ token: monitor }),
    'dashboards.summary': () => ({ input: { from: isoAt(NOW - 24 * 60 * MIN), to: isoAt(NOW) }, token: monitor }),
    'reports.list': () => ({ input: { limit: 5 }, token: monitor }),
    'reports.byId': () => ({ input: { id: reportId }, token: monitor }),
    'reports.generate': () => ({ token: admin }),
    'actions.logoff': () => ({ input: { host_id: agentHost, session_id: 2 }, token: monitor }),
    'actions.eventSessions': () => ({ input: { event_id: rdpEvent }, token: monitor }),
    'actions.eventLogoff': () => ({ input: { event_id: rdpEvent }, token: monitor }),
    'actions.winrmTest': () => ({ input: { host_id: agentHost }, token: monitor, fails: { status: 409, code: 'action/target_unverified' } }),
    // SSH goes only to a verified target, checked first: every agent here connects from loopback.
    'actions.sshTest': () => ({ input: { host_id: agentHost }, token: monitor, fails: { status: 409, code: 'action/target_unverified' } }),
    'actions.commands': () => ({ input: { host_id: agentHost, limit: 50 }, token: monitor }),
    'actions.command': () => ({ input: { id: commandId }, token: monitor }),
    'maintenance.list': () => ({ token: monitor }),
    'maintenance.active': () => ({ input: { host: 'QUIET' }, token: monitor }),
    'maintenance.byId': () => ({ input: { id: windowId }, token: monitor }),
    'maintenance.create': (via) => ({ input: windowFields(`created over ${via}`), token: admin }),
    'maintenance.update': async (via) => ({ input: { id: await createWindow(), ...windowFields(`changed over ${via}`) }, token: admin }),
    'maintenance.end': async () => ({ input: { id: await createWindow() }, token: admin }),
    'mobile.codes': () => ({ token: admin }),
    'mobile.devices': () => ({ token: admin }),
    'mobile.revokeCode': async () => ({ input: { id: (await issueCode()).id }, token: admin }),
    'mobile.revokeDevice': async () => ({ input: { id: await deviceId() }, token: admin }),
    'mobile.deleteDevice': async () => ({ input: { id: await deviceId() }, token: admin }),
    'notifications.vapidPublicKey': () => ({ token: monitor }),
    'notifications.subscribePush': () => ({ input: pushSubscription(), token: monitor }),
    'notifications.pushSubscriptions': () => ({ token: admin }),
    'notifications.unsubscribePush': async () => ({
      input: { id: (await api(t, 'POST', '/api/v1/push/subscriptions', { token: monitor, body: pushSubscription() })).body.id },
      token: monitor,
    }),
    'telegram.status': () => ({ token: monitor }),
    'telegram.createLinkCode': () => ({ token: monitor }),
    'telegram.unlink': () => ({ token: monitor }),
    'totp.loginVerify': async () => {
      const u = await enrolledMonitor();
      return { input: { ticket: (await login(t, u.user.username, u.password)).body.ticket, code: u.recovery[0] }, token: null };
    },
    'totp.loginEnroll': async () => ({ input: { ticket: await enrolTicket() }, token: null }),
    'totp.loginEnrollConfirm': async () => {
      const ticket = await enrolTicket();
      const secret = (await api(t, 'POST', '/api/v1/auth/login/enroll', { body: { ticket } })).body.secret as string;
      return { input: { ticket, code: totpFor(secret) }, token: null };
    },
    'totp.status': () => ({ token: monitor }),
    'totp.enroll': async () => ({ token: (await freshMonitor()).token }),
    'totp.confirm': async () => {
      const { token } = await freshMonitor();
      return { input: { code: totpFor((await api(t, 'POST', '/api/v1/auth/totp/enroll', { token })).body.secret) }, token };
    },
    'totp.disable': async () => {
      const u = await enrolledMonitor();
      return { input: { code: u.recovery[0] }, token: u.token };
    },
    'totp.reset': async () => ({ input: { user_id: (await enrolledMonitor()).user.id }, token: admin }),
    'agents.versions': () => ({ token: monitor }),
    'agents.refreshVersions': () => ({ token: admin }),
    'agents.testGitRepo': (via) => ({ input: { product: pick(via, PRODUCTS) }, token: admin }),
    'agents.updates': () => ({ input: { limit: 10 }, token: monitor }),
    // No WinRM or SSH here: the push does not reach the host, and the answer is the job (200) saying so.
    'agents.pushUpdate': async (via) => ({
      input: { job_id: (await api(t, 'POST', `/api/v1/hosts/${pick(via, outdatedHosts)}/agent-update`, { token: admin })).body.job.id },
      token: admin,
    }),
    'agents.updateHost': (via) => ({ input: { host_id: pick(via, outdatedHosts) }, token: admin }),
    'agents.hostConfig': () => ({ input: { host_id: agentHost }, token: monitor }),
    'agents.setHostConfig': (via) => ({ input: { host_id: agentHost, config: { log_level: pick(via, ['info', 'debug']) } }, token: admin }),
    'problems.openedByType': () => ({ token: monitor }),
    // Approval cases come last: they put logoffs under the policy, and a monitor files each request.
    'approvals.list': () => ({ input: { limit: 10 }, token: monitor }),
    'approvals.byId': async () => ({ input: { id: (filedOnce ??= await fileLogoffRequest()) }, token: monitor }),
    'approvals.request': async () => {
      await fileLogoffRequest();
      return { input: { request: { kind: 'host_logoff', host_id: agentHost, session_id: 2 }, reason: 'same shape' }, token: monitor };
    },
    'approvals.approve': async () => ({ input: { id: await fileLogoffRequest(), note: 'ok' }, token: admin }),
    'approvals.deny': async () => ({ input: { id: await fileLogoffRequest() }, token: admin }),
    'approvals.cancel': async () => ({ input: { id: await fileLogoffRequest() }, token: monitor }),
    'groups.list': () => ({ token: monitor }),
    'groups.preview': () => ({ input: { host_ids: [hosts.CHARLIE], rules: { host_patterns: ['AL*'] } }, token: admin }),
    'groups.ofHost': () => ({ input: { id: hosts.ALPHA }, token: monitor }),
    'groups.byId': async () => ({ input: { id: await (readGroup ??= createGroup('read')) }, token: monitor }),
    'groups.create': (via) => ({ input: { name: `created over ${via}` }, token: admin }),
    'groups.update': async (via) => ({ input: { id: await createGroup(`to change over ${via}`), name: `changed over ${via}` }, token: admin }),
    'groups.delete': async (via) => ({ input: { id: await createGroup(`to delete over ${via}`) }, token: admin }),
    'groups.userLimit': () => ({ input: { id: monitorId }, token: admin }),
    'groups.setUserLimit': async () => ({ input: { id: await freshUserId(), group_ids: [await (readGroup ??= createGroup('read'))] }, token: admin }),
    'auth.session': () => ({ token: monitor }),
    'users.unlock': async () => ({ input: { id: await freshUserId() }, token: admin }),
    'suggest.values': () => ({ input: { field: 'type', prefix: 'login' }, token: monitor }),
    'bans.list': () => ({ input: { status: 'all', limit: 50 }, token: monitor }),
    'bans.byId': async () => ({ input: { id: (readBan ??= await banOf('203.0.113.100')) }, token: monitor }),
    'bans.create': (via) => ({ input: { address: pick(via, ['203.0.113.101', '203.0.113.102']) }, token: admin }),
    'bans.apply': async (via) => ({ input: { id: await proposedBan(pick(via, ['203.0.113.103', '203.0.113.104'])) }, token: admin }),
    'bans.dismiss': async (via) => ({ input: { id: await proposedBan(pick(via, ['203.0.113.105', '203.0.113.106'])) }, token: admin }),
    'bans.unban': async (via) => ({ input: { id: await banOf(pick(via, ['203.0.113.107', '203.0.113.108'])) }, token: admin }),
    'logins.user': () => ({ input: { user: 'CORP\\Alice' }, token: monitor }),
    'logins.rebuildBaselines': () => ({ token: admin }),
    'rollouts.list': () => ({ input: { limit: 10 }, token: monitor }),
    'rollouts.byId': async () => ({ input: { id: (readRollout ??= await startRollout()) }, token: monitor }),
    // The same product both times (each start is a rollout of its own): the other has a Linux host more by now.
    'rollouts.start': () => ({ input: rolloutOf(PRODUCTS[0]), token: admin }),
    'rollouts.pause': async () => ({ input: { id: await startRollout() }, token: admin }),
    'rollouts.resume': async () => {
      const id = await startRollout();
      await api(t, 'POST', `/api/v1/rollouts/${id}/pause`, { token: admin });
      return { input: { id }, token: admin };
    },
    'rollouts.abort': async () => ({ input: { id: await startRollout() }, token: admin }),
    // The host's update to the rollout's target is still pending: both transports refuse alike.
    'rollouts.rollbackHost': async () => ({ input: { id: await startRollout(), host_id: outdatedHosts[0] }, token: admin, fails: { status: 409, code: 'rollout/host_busy' } }),
    // Nothing of the ring was updated yet: both transports refuse alike.
    'rollouts.rollbackRing': async () => ({ input: { id: await startRollout(), ring: 0 }, token: admin, fails: { status: 409, code: 'rollout/nothing_to_roll_back' } }),
    'agents.pins': () => ({ input: { product: PRODUCTS[0] }, token: monitor }),
    'agents.setPin': (via) => ({ input: { product: PRODUCTS[0], max_version: '2.1.7-SAC', target: { host_id: hosts[pick(via, ['ALPHA', 'BRAVO'])] } }, token: admin }),
    'agents.removePin': async (via) => {
      const body = { product: PRODUCTS[1], max_version: '2.1.5-SAC', target: { host_id: hosts[pick(via, ['ALPHA', 'BRAVO'])] } };
      return { input: { id: (await api(t, 'PUT', '/api/v1/agent-pins', { token: admin, body })).body.id }, token: admin };
    },
  };

  /** A rollout of a product's outdated hosts: one wave, soaking a day. */
  const rolloutOf = (product: string) => ({ product, hosts: { all_outdated: true }, waves: [{ percent: 100, soak_minutes: 1440 }] });
  let readRollout: string | undefined;
  const startRollout = async (): Promise<string> => (await api(t, 'POST', '/api/v1/rollouts', { token: admin, body: rolloutOf(PRODUCTS[0]) })).body.id;

  let readBan: string | undefined;
  /** A ban applied now (no SSH here: each Linux host's outcome says so). */
  const banOf = async (address: string): Promise<string> => (await api(t, 'POST', '/api/v1/bans', { token: admin, body: { address } })).body.id;
  /** A ban proposed by the default propagation policy (suggest) from a host's own `ssh.ip.banned`. */
  const proposedBan = async (address: string): Promise<string> => {
    await ingestEvent(t, { type: 'ssh.ip.banned', source: { product: 'ssh-monitor', product_version: '1.1.2-ipset' }, host: { hostname: 'bastion', os_family: 'linux' }, details: { ip_address: address } });
    const open = async () => ((await api(t, 'GET', '/api/v1/bans?status=open', { token: admin })).body.bans as { id: string; address: string }[]).find((b) => b.address === address);
    return (await waitFor(`the proposed ban of ${address}`, open)).id;
  };

  /** The request both transports read back (a query's answers must be equal). */
  let filedOnce: string | undefined;

  /** Puts logoffs under the approval policy and files a logoff request as the monitor; its id. */
  async function fileLogoffRequest(): Promise<string> {
    await api(t, 'PATCH', '/api/v1/settings/approvals', { token: admin, body: { require: ['session_logoff'] } });
    const filed = await api(t, 'POST', '/api/v1/approvals', { token: monitor, body: { request: { kind: 'host_logoff', host_id: agentHost, session_id: 2 }, reason: 'same shape' } });
    return filed.body.id as string;
  }

  const bothTransports = () => (t.sac.operations as readonly AnyOperation[]).filter((op): op is AnyOperation & { path: string } => op.path !== undefined && op.trpc !== false);

  it('has a case for every operation with both transports, and none for one that is gone', () => {
    const ids = bothTransports().map((op) => op.id);
    expect(ids.filter((id) => !(id in CASES)), 'operations without a case here').toEqual([]);
    expect(Object.keys(CASES).filter((id) => !ids.includes(id)), 'cases of operations that do not exist').toEqual([]);
  });

  it('answers equal queries and same-shaped mutations, each parsing under the declared output schema', async () => {
    const differences: string[] = [];
    for (const op of bothTransports()) {
      const viaRest = await CASES[op.id]('rest');
      const req = restRequest(op, viaRest.input);
      const rest = await api(t, op.method, req.path, { token: viaRest.token, body: req.body });
      const viaTrpc = await CASES[op.id]('trpc');
      const called = await trpc(t, viaTrpc.token, op.kind, op.id, viaTrpc.input);

      if (viaRest.fails) {
        // Both transports answer the same error: the REST status and app code, and tRPC's HTTP status and app code.
        const { status: want, code } = viaRest.fails;
        const [restCode, trpcCode] = [(rest.body as { error?: { code?: string } }).error?.code, (called.error as { data?: { appCode?: string } } | undefined)?.data?.appCode];
        if (rest.status !== want || restCode !== code) differences.push(`${op.id}: REST ${rest.status} ${restCode}, expected ${want} ${code}`);
        if (called.status !== want || trpcCode !== code) differences.push(`${op.id}: tRPC ${called.status} ${trpcCode}, expected ${want} ${code}`);
        continue;
      }
      const restData: unknown = op.envelope === undefined ? rest.body : (rest.body as Record<string, unknown>)[op.envelope];
      // An operation with an alternative success status answers it when its output says so (202: queued for the agent).
      const status = rest.status < 300 && op.alternative?.when(restData) ? op.alternative.status : (op.status ?? 200);
      if (rest.status !== status) differences.push(`${op.id}: REST ${rest.status} ${JSON.stringify(rest.body)}, expected ${status}`);
      if (called.status !== 200) differences.push(`${op.id}: tRPC ${called.status} ${JSON.stringify(called.error)}`);
      if (rest.status !== status || called.status !== 200) continue;
      if (!op.output.safeParse(called.data).success) differences.push(`${op.id}: the tRPC answer does not parse under the output schema`);
      // A 204 has no body to compare: the tRPC answer alone is checked above.
      if (status === 204) continue;
      if (!op.output.safeParse(restData).success) differences.push(`${op.id}: the REST answer does not parse under the output schema`);
      // A query reads the same state twice: equal. A mutation acted on its own target each time: the same shape.
      const [a, b] = op.kind === 'query' ? [restData, called.data] : [shapeOf(restData), shapeOf(called.data)];
      if (JSON.stringify(a) !== JSON.stringify(b)) differences.push(`${op.id}: REST ${JSON.stringify(a).slice(0, 300)} ≠ tRPC ${JSON.stringify(b).slice(0, 300)}`);
    }
    expect(differences).toEqual([]);
    // Signing in, creating users and changing passwords hash with scrypt: many of them, one after another.
  }, 240_000);
});
