import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GitReposSettingsSchema } from '../../../shared/src/index.js';
import { ManualClock } from '../../../test/helpers/clock.js';
import { openFreshStore } from '../../../test/helpers/stores.js';
import { AuditService } from '../audit/index.js';
import { AppError } from '../errors.js';
import type { Store } from '../store/index.js';
import { AgentVersionsService } from './agent-versions.service.js';
import type { GitReleaseSource } from './git-source.js';

const logger = pino({ level: 'silent' });
const T0 = Date.UTC(2026, 5, 3, 9, 0, 0);
const FENCE = { token: 1, check: async () => {} };
const ADMIN = { user: { id: 'u1', username: 'alice', role: 'admin' as const }, ip: '127.0.0.1' };
const COMMIT = 'a'.repeat(40);

/** A git source whose remotes answer `versions` (a product missing there is unreachable); it records what it was asked. */
function fakeGit(versions: Map<string, string>) {
  const mirrors = new Set<string>();
  const calls: string[] = [];
  const git: GitReleaseSource = {
    hasMirror: (dir) => mirrors.has(dir),
    async sync(source, dir) {
      calls.push(`sync ${source.product}`);
      if (!versions.has(source.product)) throw new AppError('git/unreachable', `Cannot fetch the repository of ${source.product}`);
      mirrors.add(dir);
    },
    async latest(source) {
      return { version: versions.get(source.product)!, commit: COMMIT };
    },
    async verifyCommit(_dir, commit, trust) {
      calls.push(`verify ${commit.slice(0, 4)} ${trust.required}`);
    },
    async releaseVersions() {
      return [versions.values().next().value!];
    },
    async release(_dir, version) {
      return { version, commit: COMMIT };
    },
    async buildBundle() {
      throw new Error('not used by versions');
    },
  };
  return { git, calls };
}

describe('AgentVersionsService with a fake git source', () => {
  let store: Store;
  let clock: ManualClock;
  let remote: Map<string, string>;
  let fake: ReturnType<typeof fakeGit>;
  let settings: ReturnType<typeof GitReposSettingsSchema.parse>;
  let versions: AgentVersionsService;

  beforeEach(async () => {
    store = await openFreshStore('sqlite');
    clock = new ManualClock(T0);
    remote = new Map([
      ['rdp-login-monitor', '2.1.8-SAC'],
      ['ssh-monitor', '1.4.0'],
    ]);
    fake = fakeGit(remote);
    settings = GitReposSettingsSchema.parse({
      refresh_minutes: 60,
      repos: [
        { product: 'rdp-login-monitor', url: 'https://git.example.test/rdp.git' },
        { product: 'ssh-monitor', url: 'https://git.example.test/ssh.git' },
      ],
    });
    versions = new AgentVersionsService({
      repo: store.agentVersions,
      git: fake.git,
      gitRepos: async () => settings,
      mirrorsDir: '/mirrors',
      clock,
      audit: new AuditService(store.audit, clock, logger),
      logger,
    });
  });

  afterEach(async () => {
    await store.close();
  });

  it('reads each repository again only when its refresh interval has passed', async () => {
    await versions.refreshDue(FENCE);
    expect(fake.calls).toEqual(['sync rdp-login-monitor', 'sync ssh-monitor']);
    expect(await versions.latest()).toEqual(new Map(remote));

    clock.advance(59 * 60_000);
    await versions.refreshDue(FENCE);
    expect(fake.calls).toHaveLength(2);

    clock.advance(60_000);
    await versions.refreshDue(FENCE);
    expect(fake.calls).toHaveLength(4);
  });

  it('keeps the last good version of a repository that became unreachable, and says why', async () => {
    await versions.refreshDue(FENCE);
    remote.delete('ssh-monitor');
    clock.advance(60 * 60_000);

    const list = await versions.refreshAll(ADMIN);

    expect(list.find((v) => v.product === 'ssh-monitor')).toMatchObject({ latest_version: '1.4.0', error: 'Cannot fetch the repository of ssh-monitor', error_reason: 'unreachable' });
    expect(list.find((v) => v.product === 'rdp-login-monitor')).toMatchObject({ latest_version: '2.1.8-SAC', error: null });
    expect((await store.audit.list({ limit: 1 }))[0]).toMatchObject({ action: 'agent_versions.refresh', outcome: 'failed' });
  });

  it('fetches a mirror only when this daemon has none, and verifies releases only while signed tags are required', async () => {
    await versions.mirrorOf('ssh-monitor');
    await versions.mirrorOf('ssh-monitor');
    expect(fake.calls).toEqual(['sync ssh-monitor']);

    await versions.checkRelease('ssh-monitor', COMMIT);
    expect(fake.calls).toEqual(['sync ssh-monitor']);
    settings = { ...settings, require_signed_tags: 'on' };
    await versions.checkRelease('ssh-monitor', COMMIT);
    expect(fake.calls).toEqual(['sync ssh-monitor', 'verify aaaa true']);
  });
});
