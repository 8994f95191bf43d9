import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentUpdatesSettingsSchema, ApprovalsSettingsSchema, type StreamMessage } from '../../../shared/src/index.js';
import { ManualClock } from '../../../test/helpers/clock.js';
import { seedHost } from '../../../test/helpers/hosts.js';
import { openFreshStore, tempDir } from '../../../test/helpers/stores.js';
import { AuditService } from '../audit/index.js';
import { ApprovalPolicy } from '../approvals/index.js';
import { ShellFailure, type LinuxShell, type RemoteShell, type ShellResult } from '../remote-shell/index.js';
import type { SshTarget } from '../ssh/index.js';
import type { Host, Store } from '../store/index.js';
import type { WinRmHostTarget } from '../winrm/index.js';
import { AgentUpdatesService } from './agent-updates.service.js';

const logger = pino({ level: 'silent' });
const T0 = Date.UTC(2026, 5, 3, 9, 0, 0);
const COMMIT = 'c'.repeat(40);
const ADMIN = { user: { id: 'u1', username: 'alice', role: 'admin' as const }, ip: '127.0.0.1' };
const WINDOWS = { hostname: 'RDS01', os_family: 'windows', ipv4: '10.0.0.21' } as const;
const LINUX = { hostname: 'web01', os_family: 'linux', ipv4: '10.0.0.31' } as const;

/** A remote shell that records each session's scripts and answers them from `answers`, in order. */
function fakeShell<Target>() {
  const opened: Target[] = [];
  const scripts: { script: string; stdin: boolean }[] = [];
  const answers: ShellResult[] = [];
  let refuse: Error | null = null;
  const shell = {
    async open(target: Target) {
      if (refuse) throw refuse;
      opened.push(target);
      return {
        host: (target as WinRmHostTarget).address,
        async run(script: string, options: { stdin?: Readable }) {
          scripts.push({ script, stdin: options.stdin !== undefined });
          options.stdin?.destroy();
          return answers.shift() ?? { exitCode: 0, stdout: '', stderr: '' };
        },
        end() {},
      };
    },
    async test() {
      throw new Error('not used by updates');
    },
  };
  return { shell, opened, scripts, answers, refuse: (err: Error) => (refuse = err) };
}

describe('AgentUpdatesService with a fake remote shell and git source', () => {
  let store: Store;
  let clock: ManualClock;
  let windows: ReturnType<typeof fakeShell<WinRmHostTarget>>;
  let linux: ReturnType<typeof fakeShell<SshTarget>>;
  let builds: string[];
  let published: StreamMessage[];
  let updates: AgentUpdatesService;

  beforeEach(async () => {
    store = await openFreshStore('sqlite');
    clock = new ManualClock(T0);
    windows = fakeShell<WinRmHostTarget>();
    linux = fakeShell<SshTarget>();
    builds = [];
    published = [];
    const latest = new Map([
      ['rdp-login-monitor', '2.1.8-SAC'],
      ['ssh-monitor', '1.4.0'],
    ]);
    updates = new AgentUpdatesService({
      repo: store.agentUpdates,
      store,
      versions: {
        latest: async () => latest,
        list: async () => [...latest].map(([product, v]) => ({ product, latest_version: v, commit: COMMIT, checked_at: null, error: null, error_reason: null })),
        checkRelease: async () => {},
        mirrorOf: async (product) => `/mirrors/${product}`,
      },
      git: {
        async buildBundle(_dir, product, commit, file) {
          builds.push(`${product}@${commit}`);
          writeFileSync(file, `bundle of ${product}`);
          return { sha256: createHash('sha256').update(`bundle of ${product}`).digest('hex'), size: `bundle of ${product}`.length };
        },
      },
      settings: async () => AgentUpdatesSettingsSchema.parse({ enabled: true, fallback_after_minutes: 0 }),
      approvals: new ApprovalPolicy(async () => ApprovalsSettingsSchema.parse({})),
      pinOf: async () => null,
      windows: windows.shell as RemoteShell<WinRmHostTarget>,
      linux: linux.shell as LinuxShell,
      publicUrl: 'https://sac.example.test',
      bundlesDir: tempDir('sac-bundles-'),
      clock,
      audit: new AuditService(store.audit, clock, logger),
      publish: (m) => published.push(m),
      logger,
    });
  });

  afterEach(async () => {
    await store.close();
  });

  const windowsHost = (observedIp?: string) =>
    seedHost(store, { host: WINDOWS, source: { product: 'rdp-login-monitor', product_version: '2.1.7-SAC', agent_instance_id: 'agent-rds01' } }, T0, observedIp);
  /** A Linux host whose agent SAC saw connect from its reported address, unless `seen` is false. */
  const linuxHost = (seen = true) =>
    seedHost(store, { host: LINUX, source: { product: 'ssh-monitor', product_version: '1.3.0', agent_instance_id: 'agent-web01' } }, T0, seen ? LINUX.ipv4 : undefined);
  const states = async (host: Host) => (await store.agentUpdates.list({ host_id: host.id, limit: 10 })).map((j) => j.state);

  it('offers a pending job to its agent once with a single-host link, and builds the bundle once', async () => {
    const host = await windowsHost();
    const { job, created } = await updates.startForHost(host.id, ADMIN);
    expect([job.state, created]).toEqual(['pending', true]);

    const first = await updates.poll('agent-rds01', (token) => `https://sac.example.test/bundle/${token}`);
    const second = await updates.poll('agent-rds01', (token) => `https://sac.example.test/bundle/${token}`);

    expect(first.update).toMatchObject({ job_id: job.id, version: '2.1.8-SAC', sha256: createHash('sha256').update('bundle of rdp-login-monitor').digest('hex') });
    expect(second.update?.url).not.toBe(first.update?.url);
    expect(builds).toEqual([`rdp-login-monitor@${COMMIT}`]);
    expect((await store.agentUpdates.byId(job.id))?.offered_ms).toBe(T0);
  });

  it('pushes a Windows job over WinRM to the verified address: the deploy script names the bundle link and hash, and the agent reports success', async () => {
    const host = await windowsHost('10.0.0.21');
    const { job } = await updates.startForHost(host.id, ADMIN);

    const pushed = await updates.pushNow(job.id, ADMIN);

    expect(windows.opened).toEqual([{ address: '10.0.0.21', name: '10.0.0.21' }]);
    expect(windows.scripts).toHaveLength(1);
    expect(windows.scripts[0].script).toContain('https://sac.example.test/api/v1/agent/rdp-bundle/');
    expect(windows.scripts[0].script).toContain(createHash('sha256').update('bundle of rdp-login-monitor').digest('hex'));
    // WinRM leaves success to the agent's own word: the job waits in `fallback`.
    expect([pushed.state, pushed.path]).toEqual(['fallback', 'winrm']);
    expect(published.map((m) => m.type === 'agent_update.changed' && m.data.state)).toEqual(['pending', 'fallback']);
  });

  it('fails a Windows push whose deploy script exits non-zero, keeping its output', async () => {
    const host = await windowsHost('10.0.0.21');
    const { job } = await updates.startForHost(host.id, ADMIN);
    windows.answers.push({ exitCode: 3, stdout: 'downloading', stderr: 'hash mismatch' });

    const pushed = await updates.pushNow(job.id, ADMIN);

    expect(pushed.state).toBe('failed');
    expect(pushed.output).toBe('Deploy exited with 3\ndownloading\nhash mismatch');
  });

  it('sends no credentials to a Windows host whose address SAC has not verified: the job fails and says why', async () => {
    const host = await windowsHost();
    const { job } = await updates.startForHost(host.id, ADMIN);

    const pushed = await updates.pushNow(job.id, ADMIN);

    expect(windows.opened).toEqual([]);
    expect(pushed.state).toBe('failed');
    expect(pushed.output).toMatch(/unverified.*must pin/);
  });

  it.each([
    ['1.4.0', 'success', null],
    ['1.3.0', 'failed', '10.0.0.31 reports version 1.3.0 after the install, not 1.4.0'],
  ])('pushes a Linux job over SSH (upload, install) and, with %s read back, leaves it %s', async (readBack, state, failure) => {
    const host = await linuxHost();
    const { job } = await updates.startForHost(host.id, ADMIN);
    linux.answers.push({ exitCode: 0, stdout: '/tmp/sac-agent-update.Ab12Cd34\n', stderr: '' }, { exitCode: 0, stdout: `installed\nSAC-AGENT-VERSION: ${readBack}\n`, stderr: '' });

    const pushed = await updates.pushNow(job.id, ADMIN);

    expect(linux.opened).toEqual([{ address: '10.0.0.31', name: '10.0.0.31' }]);
    expect(linux.scripts.map((s) => s.stdin)).toEqual([true, false]);
    expect(linux.scripts[1].script).toContain('/tmp/sac-agent-update.Ab12Cd34');
    expect([pushed.state, pushed.path]).toEqual([state, 'ssh']);
    if (failure) expect(pushed.output).toContain(failure);
  });

  it('sends no SSH credentials to a Linux host whose address SAC has not seen its agent use', async () => {
    const host = await linuxHost(false);
    const { job } = await updates.startForHost(host.id, ADMIN);

    const pushed = await updates.pushNow(job.id, ADMIN);

    expect(linux.opened).toEqual([]);
    expect(pushed.state).toBe('failed');
    expect(pushed.output).toMatch(/unverified.*must pin/);
  });

  it('fails a Linux push the shell cannot reach, with the shell\'s reason, and builds no bundle', async () => {
    const host = await linuxHost();
    const { job } = await updates.startForHost(host.id, ADMIN);
    linux.refuse(new ShellFailure('web01: host key does not match known_hosts'));

    const pushed = await updates.pushNow(job.id, ADMIN);

    expect(pushed.state).toBe('failed');
    expect(pushed.output).toBe('web01: host key does not match known_hosts');
    expect(builds).toEqual([]);
    expect(await states(host)).toEqual(['failed']);
  });
});
