import { ApprovalsSettingsSchema } from '../../../shared/src/index.js';
import { ApprovalPolicy } from '../approvals/index.js';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CommandView } from '../../../shared/src/index.js';
import { ManualClock } from '../../../test/helpers/clock.js';
import { seedHost } from '../../../test/helpers/hosts.js';
import { openFreshStore } from '../../../test/helpers/stores.js';
import type { AuditInput } from '../audit/index.js';
import { AppError } from '../errors.js';
import type { AccessProbe, LinuxShell, WindowsShell } from '../remote-shell/index.js';
import type { SshTarget } from '../ssh/index.js';
import type { Store } from '../store/index.js';
import type { WinRmHostTarget } from '../winrm/index.js';
import { RemoteActionsService } from './remote-actions.service.js';

const logger = pino({ level: 'silent' });
const T0 = Date.UTC(2026, 5, 3, 9, 0, 0);
const OPERATOR = { user: { id: 'u1', username: 'olga', role: 'admin' as const }, ip: '127.0.0.1' };
const QWINSTA = ' SESSIONNAME       USERNAME                 ID  STATE   TYPE        DEVICE\n>rdp-tcp#3         alice                     3  Active\n';

/** A Windows shell whose host answers `listSessions` unless `down` names the WinRM error it fails with. */
function fakeWindows() {
  const calls: { op: string; target: WinRmHostTarget }[] = [];
  const state = { configured: true, down: null as string | null };
  const reach = (op: string, target: WinRmHostTarget) => {
    calls.push({ op, target });
    if (state.down) throw new AppError(state.down, 'The host did not answer', { kind: 'operational' });
  };
  const shell: WindowsShell = {
    configured: async () => state.configured,
    async open() {
      throw new Error('not used by remote actions');
    },
    async test(target) {
      reach('test', target);
      return { ok: true, detail: 'administrator shell opened', durationMs: 5 };
    },
    async listSessions(target) {
      reach('listSessions', target);
      return { sessions: [{ id: 3, name: 'rdp-tcp#3', user: 'alice', state: 'Active' }] as never, raw: QWINSTA, host: target.address, durationMs: 7 };
    },
    async logoff(target) {
      reach('logoff', target);
      return { exitCode: 0, stdout: '', stderr: '', host: target.address, durationMs: 4 };
    },
  };
  return { shell, calls, state };
}

describe('RemoteActionsService with a fake remote shell', () => {
  let store: Store;
  let clock: ManualClock;
  let windows: ReturnType<typeof fakeWindows>;
  let sshProbes: SshTarget[];
  let sshAnswer: AccessProbe;
  let queued: { host_id: string; type: string; params: Record<string, unknown> }[];
  let audit: AuditInput[];
  let actions: RemoteActionsService;

  beforeEach(async () => {
    store = await openFreshStore('sqlite');
    clock = new ManualClock(T0);
    windows = fakeWindows();
    sshProbes = [];
    sshAnswer = { ok: true, detail: 'sudo -n true succeeded on web01 as sac', durationMs: 9, host: 'web01' };
    queued = [];
    audit = [];
    const linux: LinuxShell = {
      async open() {
        throw new Error('not used by the access test');
      },
      async test(candidates) {
        sshProbes.push(candidates);
        return sshAnswer;
      },
    };
    actions = new RemoteActionsService({
      store,
      commands: {
        async enqueue(input) {
          queued.push({ host_id: input.host_id, type: input.type, params: input.params });
          return { id: `cmd-${queued.length}`, state: 'queued', type: input.type } as CommandView;
        },
      },
      audit: { record: async (entry) => void audit.push(entry) },
      clock,
      logger,
      windows: windows.shell,
      linux,
      approvals: new ApprovalPolicy({ settings: async () => ApprovalsSettingsSchema.parse({}), groupHosts: async () => new Set(), hostsOf: async () => [] }),
      perMinute: 3,
      timeoutMs: 5_000,
    });
  });

  afterEach(async () => {
    await store.close();
  });

  const windowsHost = (observedIp?: string) =>
    seedHost(store, { host: { hostname: 'RDS01', os_family: 'windows', ipv4: '10.0.0.21' }, source: { agent_instance_id: 'agent-rds01' } }, T0, observedIp);

  it('lists sessions over WinRM on the verified address and audits the path it took', async () => {
    const host = await windowsHost('10.0.0.21');

    const answer = await actions.listSessions(host.id, OPERATOR);

    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ path: 'winrm', target: '10.0.0.21', raw: QWINSTA });
    expect(windows.calls).toEqual([{ op: 'listSessions', target: { address: '10.0.0.21', name: '10.0.0.21' } }]);
    expect(queued).toEqual([]);
    expect(audit).toMatchObject([{ action: 'actions.sessions_listed', outcome: 'ok', details: { path: 'winrm' } }]);
  });

  it('queues the logoff to the agent when WinRM does not answer', async () => {
    const host = await windowsHost('10.0.0.21');
    windows.state.down = 'winrm/unreachable';

    const answer = await actions.logoff(host.id, 3, OPERATOR);

    expect(answer.status).toBe(202);
    expect(queued).toEqual([{ host_id: host.id, type: 'logoff', params: { session_id: 3 } }]);
    expect(audit).toMatchObject([{ action: 'actions.logoff', outcome: 'ok', details: { path: 'agent', session_id: 3 } }]);
  });

  it('does not fall back to the agent when WinRM refuses the credentials', async () => {
    const host = await windowsHost('10.0.0.21');
    windows.state.down = 'winrm/auth_failed';

    await expect(actions.listSessions(host.id, OPERATOR)).rejects.toMatchObject({ code: 'winrm/auth_failed' });
    expect(queued).toEqual([]);
    expect(audit).toMatchObject([{ outcome: 'failed', details: { code: 'winrm/auth_failed' } }]);
  });

  it('goes straight to the agent when no Windows administrator is configured', async () => {
    const host = await windowsHost('10.0.0.21');
    windows.state.configured = false;

    const answer = await actions.listSessions(host.id, OPERATOR);

    expect(answer.status).toBe(202);
    expect(windows.calls).toEqual([]);
    expect(queued.map((q) => q.type)).toEqual(['qwinsta']);
  });

  it('sends no credentials to an address SAC has not seen the agent use, and does not hand the action to the agent instead', async () => {
    const host = await windowsHost();

    await expect(actions.winrmTest(host.id, OPERATOR)).rejects.toMatchObject({ code: 'action/target_unverified' });
    await expect(actions.listSessions(host.id, OPERATOR)).rejects.toMatchObject({ code: 'action/target_unverified' });
    expect(windows.calls).toEqual([]);
    expect(queued).toEqual([]);
  });

  it('refuses session actions on a Linux host and on an event that names no session', async () => {
    const linuxHost = await seedHost(store, { host: { hostname: 'web01', os_family: 'linux', ipv4: '10.0.0.31' }, source: { product: 'ssh-monitor', agent_instance_id: 'agent-web01' } }, T0);
    await expect(actions.listSessions(linuxHost.id, OPERATOR)).rejects.toMatchObject({ code: 'actions/not_windows' });

    await windowsHost('10.0.0.21');
    await seedHost(store, { event_id: '0b6f2a41-6a4f-4d8e-9a51-2f0a8f7e6c11', type: 'rdp.login.failed', host: { hostname: 'RDS01', os_family: 'windows', ipv4: '10.0.0.21' } }, T0);
    await expect(actions.eventLogoff('0b6f2a41-6a4f-4d8e-9a51-2f0a8f7e6c11', undefined, OPERATOR)).rejects.toMatchObject({ code: 'actions/session_required' });
    expect(windows.calls).toEqual([]);
  });

  it('limits each user to perMinute actions, and lets them act again a minute later', async () => {
    const host = await windowsHost('10.0.0.21');
    for (let i = 0; i < 3; i++) await actions.listSessions(host.id, OPERATOR);

    await expect(actions.listSessions(host.id, OPERATOR)).rejects.toMatchObject({ code: 'actions/rate_limited' });
    clock.advance(60_000);
    await expect(actions.listSessions(host.id, OPERATOR)).resolves.toMatchObject({ status: 200 });
  });

  it('tests SSH access at the address SAC saw the agent use, not the names it reports, and remembers the outcome on the host', async () => {
    const host = await seedHost(store, { host: { hostname: 'web01', os_family: 'linux', ipv4: '10.0.0.31', fqdn: 'web01.corp.example' }, source: { product: 'ssh-monitor', agent_instance_id: 'agent-web01' } }, T0, '10.0.0.31');
    sshAnswer = { ok: false, detail: '10.0.0.31: authentication failed', durationMs: 12, host: '10.0.0.31' };

    const result = await actions.sshTest(host.id, OPERATOR);

    expect(result).toEqual({ ok: false, detail: '10.0.0.31: authentication failed', duration_ms: 12 });
    expect(sshProbes).toEqual([{ address: '10.0.0.31', name: '10.0.0.31' }]);
    expect((await store.hosts.byId(host.id))?.ssh_admin_ok).toBe(false);
    expect(audit).toMatchObject([{ action: 'actions.ssh_tested', outcome: 'failed', details: { target: '10.0.0.31' } }]);
  });

  it('sends no SSH credentials to a Linux host whose agent SAC has not seen connect', async () => {
    const host = await seedHost(store, { host: { hostname: 'web01', os_family: 'linux', ipv4: '10.0.0.31', fqdn: 'web01.corp.example' }, source: { product: 'ssh-monitor', agent_instance_id: 'agent-web01' } }, T0);

    await expect(actions.sshTest(host.id, OPERATOR)).rejects.toMatchObject({ code: 'action/target_unverified' });
    expect(sshProbes).toEqual([]);
  });
});
