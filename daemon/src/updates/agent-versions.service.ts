import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import type { SettingsValue } from '../../../shared/src/index.js';
import type { Actor, AuditService } from '../audit/index.js';
import type { Clock } from '../clock.js';
import { AppError, errorSummary } from '../errors.js';
import type { Fence } from '../jobs/index.js';
import type { AgentVersionRecord, AgentVersionsRepo } from '../store/index.js';
import { compareAgentVersions, isOutdated, newestVersion } from './agent-version.rules.js';
import { mirrorDir, releaseTrustOf, type GitReleaseSource, type GitRepoSource, type ReleaseTrust } from './git-source.js';

type GitRepos = SettingsValue<'git_repos'>;

export interface AgentVersionView {
  product: string;
  latest_version: string | null;
  commit: string | null;
  checked_at: string | null;
  error: string | null;
  /** `unsigned_release` when signed release tags are required and the newest release is not signed by an allowed signer. */
  error_reason: string | null;
}

export interface GitTestResult {
  ok: boolean;
  product: string;
  latest_version: string | null;
  commit: string | null;
  detail: string;
}

/** How long the latest versions are reused for the outdated badge before the store is read again. */
const LATEST_CACHE_MS = 5_000;

function view(r: AgentVersionRecord): AgentVersionView {
  return {
    product: r.product,
    latest_version: r.latest_version,
    commit: r.commit,
    checked_at: r.checked_ms === null ? null : new Date(r.checked_ms).toISOString(),
    error: r.error,
    error_reason: r.error_reason,
  };
}

/**
 * The latest version of each agent product, read from the git repositories in the `git_repos`
 * settings: bare mirrors under the data directory, fetched every `refresh_minutes` by the leader
 * (`refreshDue`, a job) and on demand. Outcomes are stored, so every daemon sharing the store
 * shows the same versions and the same outdated badges.
 */
export class AgentVersionsService {
  private latestCache: { atMs: number; byProduct: Map<string, string> } | null = null;
  /** One read per product at a time in this process; a second caller waits for the first. */
  private readonly inFlight = new Map<string, Promise<AgentVersionRecord>>();

  constructor(
    private readonly deps: {
      repo: AgentVersionsRepo;
      git: GitReleaseSource;
      gitRepos: () => Promise<GitRepos>;
      mirrorsDir: string;
      clock: Clock;
      audit: AuditService;
      logger: Logger;
    },
  ) {}

  /** Every configured product with its last read, and stored products no longer configured. */
  async list(): Promise<AgentVersionView[]> {
    const [settings, stored] = await Promise.all([this.deps.gitRepos(), this.deps.repo.list()]);
    const byProduct = new Map(stored.map((r) => [r.product, r]));
    const configured = settings.repos.map((r) => byProduct.get(r.product) ?? { product: r.product, latest_version: null, commit: null, checked_ms: null, error: null, error_reason: null });
    const unconfigured = stored.filter((r) => !settings.repos.some((c) => c.product === r.product));
    return [...configured, ...unconfigured].map(view);
  }

  /** The latest version of each product (cached for a few seconds: every host list asks). */
  async latest(): Promise<Map<string, string>> {
    const now = this.deps.clock.now();
    if (this.latestCache && now - this.latestCache.atMs < LATEST_CACHE_MS) return this.latestCache.byProduct;
    const byProduct = new Map<string, string>();
    for (const r of await this.deps.repo.list()) if (r.latest_version) byProduct.set(r.product, r.latest_version);
    this.latestCache = { atMs: now, byProduct };
    return byProduct;
  }

  /** `agent_version`, `latest_version` and the one outdated rule, for a host's read views. */
  async versionOf(product: string, agentVersion: string | null): Promise<{ agent_version: string | null; latest_version: string | null; outdated: boolean }> {
    const latest = (await this.latest()).get(product) ?? null;
    return { agent_version: agentVersion, latest_version: latest, outdated: isOutdated(agentVersion, latest) };
  }

  /**
   * The mirror of a product's repository, fetched first if this daemon has none yet (a fetched
   * mirror is answered even when reading its version then failed, e.g. on an unsigned newer tag:
   * callers name their own commit).
   */
  async mirrorOf(product: string): Promise<string> {
    const settings = await this.deps.gitRepos();
    const source = settings.repos.find((r) => r.product === product);
    if (!source) throw new AppError('git/not_configured', `No git repository is configured for ${product}`, { details: { product } });
    const dir = mirrorDir(this.deps.mirrorsDir, product);
    if (!this.deps.git.hasMirror(dir)) {
      const read = await this.read(source, releaseTrustOf(settings));
      if (read.error && !this.deps.git.hasMirror(dir)) throw new AppError('git/unreachable', read.error);
    }
    return dir;
  }

  /**
   * Refuses a commit as the source of a bundle unless it is a release signed by an allowed signer,
   * when the `git_repos` settings require signed release tags (checked at every build and hand-out:
   * a bundle built before the setting, or from a tag since re-signed or removed, is not served).
   */
  async checkRelease(product: string, commit: string): Promise<void> {
    const trust = releaseTrustOf(await this.deps.gitRepos());
    if (trust.required) await this.deps.git.verifyCommit(await this.mirrorOf(product), commit, trust);
  }

  /**
   * A release a bundle may be built from: `version`'s release tag, verified when signed tags are
   * required (`git/no_release` when no tag names it), or the latest version read when none is
   * named; with the newest older release (what a rollback installs), null when there is none.
   */
  async release(product: string, version?: string): Promise<{ version: string; commit: string; previous_version: string | null }> {
    const mirror = await this.mirrorOf(product);
    let target: { version: string; commit: string };
    if (version === undefined) {
      const stored = (await this.deps.repo.list()).find((r) => r.product === product);
      if (!stored?.latest_version || !stored.commit) throw new AppError('update/no_latest_version', `No latest version of ${product} has been read from git yet`, { details: { product } });
      target = { version: stored.latest_version, commit: stored.commit };
    } else {
      target = await this.deps.git.release(mirror, version, releaseTrustOf(await this.deps.gitRepos()));
    }
    const older = (await this.deps.git.releaseVersions(mirror)).filter((v) => (compareAgentVersions(v, target.version) ?? 0) < 0);
    return { ...target, previous_version: newestVersion(older) };
  }

  /**
   * The `agent_versions` leader job. A repository read ends in an upsert of what git says now
   * (idempotent); the fence is re-checked before each one so a run replaced while paused stops.
   */
  async refreshDue(fence: Fence): Promise<void> {
    const settings = await this.deps.gitRepos();
    const stored = new Map((await this.deps.repo.list()).map((r) => [r.product, r]));
    const now = this.deps.clock.now();
    for (const source of settings.repos) {
      const last = stored.get(source.product)?.checked_ms ?? null;
      if (last !== null && now - last < settings.refresh_minutes * 60_000) continue;
      await fence.check();
      await this.read(source, releaseTrustOf(settings));
    }
  }

  /** "Check now": reads every configured repository and answers the new list. */
  async refreshAll(actor: Actor): Promise<AgentVersionView[]> {
    const settings = await this.deps.gitRepos();
    const outcomes = await Promise.all(settings.repos.map((s) => this.read(s, releaseTrustOf(settings))));
    await this.deps.audit.record({
      action: 'agent_versions.refresh',
      actor,
      outcome: outcomes.some((o) => o.error) ? 'failed' : 'ok',
      details: { products: outcomes.map((o) => o.product), failed: outcomes.filter((o) => o.error).map((o) => o.product) },
    });
    return this.list();
  }

  /**
   * The settings "git test": clones the configured repository of `product` into a scratch
   * directory (the mirror and the stored versions stay untouched) and reads its latest version.
   */
  async test(product: string, actor: Actor): Promise<GitTestResult> {
    const settings = await this.deps.gitRepos();
    const source = settings.repos.find((r) => r.product === product);
    if (!source) throw new AppError('git/not_configured', `No git repository is configured for ${product}`, { details: { product } });
    const scratch = mkdtempSync(path.join(os.tmpdir(), 'sac-git-test-'));
    const started = this.deps.clock.now();
    let result: GitTestResult;
    try {
      const dir = path.join(scratch, 'repo.git');
      await this.deps.git.sync(source, dir);
      const latest = await this.deps.git.latest(source, dir, releaseTrustOf(settings));
      result = { ok: true, product, latest_version: latest.version, commit: latest.commit, detail: `Read ${latest.version} at ${latest.commit.slice(0, 12)}` };
    } catch (err) {
      result = { ok: false, product, latest_version: null, commit: null, detail: failureText(err) };
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
    await this.deps.audit.record({
      action: 'settings.git_test',
      actor,
      target: product,
      outcome: result.ok ? 'ok' : 'failed',
      details: { duration_ms: this.deps.clock.now() - started, latest_version: result.latest_version },
    });
    return result;
  }

  private read(source: GitRepoSource, trust: ReleaseTrust): Promise<AgentVersionRecord> {
    const running = this.inFlight.get(source.product);
    if (running) return running;
    const run = (async () => {
      let outcome: AgentVersionRecord;
      try {
        const dir = mirrorDir(this.deps.mirrorsDir, source.product);
        await this.deps.git.sync(source, dir);
        const latest = await this.deps.git.latest(source, dir, trust);
        outcome = { product: source.product, latest_version: latest.version, commit: latest.commit, checked_ms: this.deps.clock.now(), error: null, error_reason: null };
      } catch (err) {
        if (!(err instanceof AppError)) this.deps.logger.error({ product: source.product, err: errorSummary(err) }, 'reading the agent version failed');
        outcome = { product: source.product, latest_version: null, commit: null, checked_ms: this.deps.clock.now(), error: failureText(err), error_reason: reasonOf(err) };
      }
      const stored = await this.deps.repo.record(outcome);
      this.latestCache = null;
      return stored;
    })();
    this.inFlight.set(source.product, run);
    return run.finally(() => this.inFlight.delete(source.product));
  }
}

function failureText(err: unknown): string {
  return err instanceof AppError ? err.message : 'Reading the repository failed';
}

/** The reason part of an AppError code (`git/unsigned_release` → `unsigned_release`). */
function reasonOf(err: unknown): string {
  return err instanceof AppError ? err.code.slice(err.code.indexOf('/') + 1) : 'failed';
}
