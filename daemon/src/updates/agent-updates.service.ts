import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { Logger } from 'pino';
import type { SettingsValue, StreamMessage } from '../../../shared/src/index.js';
import type { ApprovalPolicy, Approved } from '../approvals/index.js';
import type { Actor, AuditService } from '../audit/index.js';
import type { Clock } from '../clock.js';
import { AppError, errorSummary } from '../errors.js';
import type { Facts } from '../facts.js';
import type { Fence } from '../jobs/index.js';
import type { AgentUpdateJob, AgentUpdateQuery, AgentUpdatesRepo, CommittedEvent, Host, Store } from '../store/index.js';
import { bundleFile, bundleFormat, bundleIntact } from './agent-bundles.js';
import { ShellFailure, type LinuxShell, type RemoteShell } from '../remote-shell/index.js';
import type { WinRmHostTarget } from '../winrm/index.js';
import { verifiedTarget } from '../action-target.js';
import { LINUX_UPLOAD_COMMAND, linuxPushScript, readBackVersion, uploadDirOf, windowsPushScript } from './agent-push.rules.js';
import { isOutdated } from './agent-version.rules.js';
import { mayMoveUpdateJob, transitionFor } from './agent-updates.rules.js';
import type { AgentVersionsService } from './agent-versions.service.js';
import type { GitReleaseSource } from './git-source.js';

export interface AgentUpdateView {
  id: string;
  host_id: string;
  product: string;
  from_version: string | null;
  target_version: string;
  state: AgentUpdateJob['state'];
  path: AgentUpdateJob['path'];
  created_at: string;
  updated_at: string;
  offered_at: string | null;
  requested_by: string;
  output: string | null;
}

export interface AgentPollAnswer {
  update: { job_id: string; version: string; url: string; sha256: string } | null;
  config: Record<string, unknown>;
}

export function agentUpdateView(j: AgentUpdateJob): AgentUpdateView {
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    id: j.id,
    host_id: j.host_id,
    product: j.product,
    from_version: j.from_version,
    target_version: j.target_version,
    state: j.state,
    path: j.path,
    created_at: iso(j.created_ms),
    updated_at: iso(j.updated_ms),
    offered_at: j.offered_ms === null ? null : iso(j.offered_ms),
    requested_by: j.requested_by,
    output: j.output,
  };
}

/** How long one push (upload, install, restart) may take. */
const PUSH_TIMEOUT_MS = 10 * 60_000;

interface PushOutcome {
  /** Why the push failed, or null. */
  failure: string | null;
  output: string;
  /** True when SAC saw the target version installed (SSH); WinRM leaves that to the agent. */
  installed: boolean;
}

/** How SAC can push to a host itself, by its OS family; null when it cannot. */
function pushPathOf(host: Pick<Host, 'os_family'>): 'winrm' | 'ssh' | null {
  return host.os_family === 'windows' ? 'winrm' : host.os_family === 'linux' ? 'ssh' : null;
}

/** How long a bundle download link stays valid. */
export const BUNDLE_TOKEN_TTL_MS = 30 * 60_000;

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * Agent updates: jobs started by admins for a host or for every outdated host of a product,
 * handed to agents when they poll (at most `max_parallel` in progress per product), moved by the
 * agents' own events, and bundles built once per version from the product's git mirror and
 * served to the one host a download token was issued for.
 */
export class AgentUpdatesService {
  constructor(
    private readonly deps: {
      repo: AgentUpdatesRepo;
      store: Pick<Store, 'hosts' | 'events'>;
      versions: Pick<AgentVersionsService, 'latest' | 'list' | 'checkRelease' | 'mirrorOf'>;
      /** Packs bundles from the product's mirror. */
      git: Pick<GitReleaseSource, 'buildBundle'>;
      settings: () => Promise<SettingsValue<'agent_updates'>>;
      /** Starting updates may need a second person's approval. */
      approvals: Pick<ApprovalPolicy, 'assert'>;
      /** The highest version a pin lets the host reach; null when no pin applies. */
      pinOf: (host: Host) => Promise<string | null>;
      /** WinRM to Windows hosts, SSH to Linux hosts: the push paths. */
      windows: RemoteShell<WinRmHostTarget>;
      linux: LinuxShell;
      /** Where hosts download bundles from (`SAC_PUBLIC_URL`); a push needs it. */
      publicUrl: string | undefined;
      bundlesDir: string;
      clock: Clock;
      audit: AuditService;
      publish: (message: StreamMessage) => void;
      logger: Logger;
    },
  ) {}

  async list(query: AgentUpdateQuery): Promise<AgentUpdateView[]> {
    return (await this.deps.repo.list(query)).map(agentUpdateView);
  }

  async byId(id: string): Promise<AgentUpdateView> {
    const job = await this.deps.repo.byId(id);
    if (!job) throw new AppError('update/not_found', 'No such agent update job', { details: { id } });
    return agentUpdateView(job);
  }

  /**
   * Starts an update of one host to its product's latest version (pending until its agent polls);
   * under the approval policy only with `approved`.
   */
  async startForHost(hostId: string, actor: Actor, approved?: Approved): Promise<{ job: AgentUpdateView; created: boolean }> {
    const host = await this.deps.store.hosts.byId(hostId);
    if (!host) throw new AppError('host/not_found', 'No such host', { details: { id: hostId } });
    await this.checkEnabled(host.agent_product);
    await this.deps.approvals.assert({ kind: 'host_update', host_id: host.id }, approved);
    const latest = (await this.deps.versions.latest()).get(host.agent_product);
    if (!latest) throw new AppError('update/no_latest_version', `No latest version of ${host.agent_product} has been read from git yet`, { details: { product: host.agent_product } });
    if (!isOutdated(host.agent_version, latest)) {
      throw new AppError('update/not_outdated', `${host.hostname} already runs ${host.agent_version} (latest ${latest})`, { details: { agent_version: host.agent_version, latest_version: latest } });
    }
    const pin = await this.deps.pinOf(host);
    if (pin !== null && isOutdated(pin, latest)) {
      throw new AppError('update/pinned', `${host.hostname} is pinned to ${host.agent_product} ${pin} at most, so it is not updated to ${latest}`, { details: { max_version: pin, latest_version: latest } });
    }
    const commit = (await this.deps.versions.list()).find((v) => v.product === host.agent_product)?.commit;
    if (!commit) throw new AppError('update/no_latest_version', `No latest version of ${host.agent_product} has been read from git yet`, { details: { product: host.agent_product } });
    return this.create(host, { version: latest, commit }, actor);
  }

  /**
   * Starts a job moving a host to a given release (a rollout's ring, a rollback: the caller checked
   * the release and the pins); an unfinished job of the host is answered instead.
   */
  async startRelease(host: Host, release: { version: string; commit: string }, actor: Actor): Promise<{ job: AgentUpdateView; created: boolean }> {
    await this.checkEnabled(host.agent_product);
    return this.create(host, release, actor);
  }

  /** Cancels a job no poll has handed out yet (it fails with `why`); null when it was offered or finished meanwhile. */
  async cancelUnoffered(jobId: string, why: string, actor: Actor): Promise<AgentUpdateView | null> {
    const cancelled = await this.deps.repo.transition(jobId, ['pending'], { state: 'failed', updated_ms: this.deps.clock.now(), output: why }, { unoffered: true });
    if (!cancelled) return null;
    await this.audited('agent_update.failed', cancelled, actor);
    return agentUpdateView(cancelled);
  }

  /**
   * `GET /api/v1/agent/poll`: the host's pending update with a fresh single-host download link
   * (when fewer than `max_parallel` updates of its product are in progress), and its desired
   * configuration. An unknown agent instance gets no update and an empty configuration.
   */
  async poll(agentInstanceId: string, bundleUrl: (token: string) => string): Promise<AgentPollAnswer> {
    const host = await this.deps.store.hosts.hostByAgentInstance(agentInstanceId);
    if (!host) return { update: null, config: {} };
    const config = await this.deps.repo.hostConfig(host.id);
    const job = await this.deps.repo.activeForHost(host.id);
    if (!job || job.state !== 'pending') return { update: null, config };
    const settings = await this.deps.settings();
    if (job.offered_ms === null && (await this.deps.repo.countInProgress(job.product)) >= settings.max_parallel) return { update: null, config };
    let bundle: { sha256: string };
    try {
      bundle = await this.bundleFor(job);
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'git/unsigned_release')) throw err;
      // The agent is offered nothing; the job fails with the reason, shown on the Agents page.
      const failed = await this.deps.repo.transition(job.id, ['pending'], { state: 'failed', updated_ms: this.deps.clock.now(), output: err.message });
      if (failed) await this.audited('agent_update.failed', failed, null);
      return { update: null, config };
    }
    const token = randomBytes(32).toString('base64url');
    const now = this.deps.clock.now();
    await this.deps.repo.insertToken({ hash: hashToken(token), job_id: job.id, expires_ms: now + BUNDLE_TOKEN_TTL_MS });
    if (job.offered_ms === null) {
      const offered = await this.deps.repo.transition(job.id, ['pending'], { offered_ms: now, updated_ms: now });
      if (offered) await this.audited('agent_update.offered', offered, null);
    }
    return { update: { job_id: job.id, version: job.target_version, url: bundleUrl(token), sha256: bundle.sha256 }, config };
  }

  /** "Push now": SAC installs the update itself instead of waiting for the agent. */
  async pushNow(jobId: string, actor: Actor): Promise<AgentUpdateView> {
    const job = await this.deps.repo.byId(jobId);
    if (!job) throw new AppError('update/not_found', 'No such agent update job', { details: { id: jobId } });
    if (job.state !== 'pending' && job.state !== 'started') throw new AppError('update/finished', `The job is already ${job.state}`, { details: { state: job.state } });
    return agentUpdateView(await this.push(job, actor));
  }

  /**
   * The leader's fallback: jobs whose agent has said nothing for `fallback_after_minutes` are
   * pushed (WinRM to Windows hosts, SSH to Linux hosts), once each (a failed push leaves the job failed).
   */
  /**
   * The `agent_update_fallback` leader job. Each push is re-fenced just before it, and its claim is
   * a compare-and-set of the job's state (pending/started → fallback), so a run replaced while
   * paused stops, and never pushes a job the new leader already claimed.
   */
  async fallbackDue(fence: Fence): Promise<void> {
    const minutes = (await this.deps.settings()).fallback_after_minutes;
    if (minutes === 0) return;
    for (const job of await this.deps.repo.stale(this.deps.clock.now() - minutes * 60_000)) {
      const host = await this.deps.store.hosts.byId(job.host_id);
      if (!host || pushPathOf(host) === null) continue;
      await fence.check();
      await this.push(job, null);
    }
  }

  /** The bundle a download token was issued for (the token is the only credential). */
  async bundleByToken(token: string): Promise<{ file: string; filename: string; contentType: string; sha256: string }> {
    const record = token.length <= 128 ? await this.deps.repo.consumeToken(hashToken(token), this.deps.clock.now()) : null;
    const job = record ? await this.deps.repo.byId(record.job_id) : null;
    if (!job) throw new AppError('update/bundle_not_found', 'No bundle for this link; it may have expired');
    const bundle = await this.bundleFor(job);
    const file = bundleFile(this.deps.bundlesDir, job.product, job.target_version);
    return { file, filename: `${job.product}-${job.target_version}.${bundleFormat(job.product).format}`, contentType: bundleFormat(job.product).contentType, sha256: bundle.sha256 };
  }

  async hostConfig(hostId: string): Promise<Record<string, unknown>> {
    if (!(await this.deps.store.hosts.byId(hostId))) throw new AppError('host/not_found', 'No such host', { details: { id: hostId } });
    return this.deps.repo.hostConfig(hostId);
  }

  async setHostConfig(hostId: string, config: Record<string, unknown>, actor: Actor): Promise<Record<string, unknown>> {
    if (!(await this.deps.store.hosts.byId(hostId))) throw new AppError('host/not_found', 'No such host', { details: { id: hostId } });
    await this.deps.repo.putHostConfig(hostId, config, this.deps.clock.now(), actor.user?.username ?? 'system');
    await this.deps.audit.record({ action: 'host.agent_config', actor, target: hostId, details: { keys: Object.keys(config).slice(0, 50) } });
    return config;
  }

  /**
   * Moves the host's active job with one of its agent's committed events (started, success,
   * failed, a newer version reported), whatever the console hides: the event is in hand. Only
   * events of the types `mayMoveUpdateJob` names come here.
   */
  async onEvent(c: CommittedEvent): Promise<void> {
    const job = await this.deps.repo.activeForHost(c.host_id);
    if (!job) return;
    const transition = transitionFor(job, { type: c.event.type, product_version: c.event.source.product_version, details: c.event.details ?? {} });
    if (!transition) return;
    const now = this.deps.clock.now();
    const output = transition.to === 'failed' ? String(c.event.summary ?? '').slice(0, 4000) : job.output;
    const moved = await this.deps.repo.transition(job.id, transition.from, { state: transition.to, updated_ms: now, output });
    if (moved) await this.audited(`agent_update.${transition.to}`, moved, null);
  }

  /**
   * Pushes a job's bundle itself: state `fallback` while it runs, `failed` with the output if it
   * does not install. Over WinRM success stays the agent's word (its `updated` lifecycle event or
   * new version); over SSH SAC reads the installed version back and the job succeeds when it is
   * the target.
   */
  private async push(job: AgentUpdateJob, actor: Actor | null): Promise<AgentUpdateJob> {
    const host = await this.deps.store.hosts.byId(job.host_id);
    if (!host) throw new AppError('host/not_found', 'No such host', { details: { id: job.host_id } });
    const path = pushPathOf(host);
    if (path === null) {
      throw new AppError('update/push_unsupported', 'SAC pushes updates over WinRM to Windows hosts and over SSH to Linux hosts', { details: { os_family: host.os_family } });
    }
    const claimed = await this.deps.repo.transition(job.id, ['pending', 'started'], { state: 'fallback', path, updated_ms: this.deps.clock.now() });
    if (!claimed) throw new AppError('update/finished', 'The job changed state meanwhile', { details: { id: job.id } });
    await this.audited('agent_update.fallback', claimed, actor);
    let outcome: PushOutcome;
    try {
      outcome = path === 'winrm' ? await this.pushWindows(claimed, host) : await this.pushLinux(claimed, host);
    } catch (err) {
      const known = err instanceof AppError || err instanceof ShellFailure;
      if (!known) this.deps.logger.error({ job_id: job.id, err: errorSummary(err) }, 'agent update push failed');
      outcome = { failure: known ? err.message : 'The push failed', output: '', installed: false };
    }
    const finished = await this.deps.repo.transition(job.id, ['fallback'], {
      state: outcome.failure ? 'failed' : outcome.installed ? 'success' : 'fallback',
      updated_ms: this.deps.clock.now(),
      output: [outcome.failure, outcome.output].filter(Boolean).join('\n').slice(0, 16_000) || null,
    });
    if (finished && finished.state !== 'fallback') await this.audited(`agent_update.${finished.state}`, finished, actor);
    return finished ?? claimed;
  }

  /** Runs the deploy PowerShell over WinRM; the host downloads the bundle from `SAC_PUBLIC_URL`. */
  private async pushWindows(job: AgentUpdateJob, host: Host): Promise<PushOutcome> {
    if (!this.deps.publicUrl) throw new AppError('update/no_public_url', 'SAC_PUBLIC_URL is not set, so the host has no address to download the bundle from');
    const target = await verifiedTarget(this.deps.store, host);
    const session = await this.deps.windows.open(target, PUSH_TIMEOUT_MS);
    try {
      const bundle = await this.bundleFor(job);
      const token = randomBytes(32).toString('base64url');
      await this.deps.repo.insertToken({ hash: hashToken(token), job_id: job.id, expires_ms: this.deps.clock.now() + BUNDLE_TOKEN_TTL_MS });
      const script = windowsPushScript({ url: `${this.deps.publicUrl}/api/v1/agent/rdp-bundle/${token}`, sha256: bundle.sha256, jobId: job.id });
      const result = await session.run(script, { timeoutMs: PUSH_TIMEOUT_MS });
      const output = [result.stdout, result.stderr].filter(Boolean).join('\n');
      return { failure: result.exitCode !== 0 ? `Deploy exited with ${result.exitCode}` : null, output, installed: false };
    } finally {
      session.end();
    }
  }

  /**
   * Uploads the tarball over SSH (no download from SAC needed), then runs the install script:
   * hash check, unpack, install and restart with `sudo -n`, version read back.
   */
  private async pushLinux(job: AgentUpdateJob, host: Host): Promise<PushOutcome> {
    const session = await this.deps.linux.open(await verifiedTarget(this.deps.store, host), 15_000);
    try {
      const settings = await this.deps.settings();
      const bundle = await this.bundleFor(job);
      const file = bundleFile(this.deps.bundlesDir, job.product, job.target_version);
      const upload = await session.run(LINUX_UPLOAD_COMMAND, { stdin: createReadStream(file), timeoutMs: PUSH_TIMEOUT_MS, maxOutput: 1024 });
      const dir = uploadDirOf(upload.stdout);
      if (upload.exitCode !== 0 || dir === null) {
        return { failure: `Uploading the bundle to ${session.host} failed (exit ${upload.exitCode})`, output: upload.stderr, installed: false };
      }
      const script = linuxPushScript({ dir, sha256: bundle.sha256, install: settings.ssh_install_command, restart: settings.ssh_restart_command, version: settings.ssh_version_command });
      const result = await session.run(script, { timeoutMs: PUSH_TIMEOUT_MS });
      const output = [result.stdout, result.stderr].filter(Boolean).join('\n');
      if (result.exitCode !== 0) return { failure: `The install on ${session.host} exited with ${result.exitCode}`, output, installed: false };
      const version = readBackVersion(result.stdout);
      if (version !== job.target_version) {
        return { failure: `${session.host} reports version ${version ?? '(none)'} after the install, not ${job.target_version}`, output, installed: false };
      }
      return { failure: null, output, installed: true };
    } finally {
      session.end();
    }
  }

  private async create(host: Host, release: { version: string; commit: string }, actor: Actor): Promise<{ job: AgentUpdateView; created: boolean }> {
    const now = this.deps.clock.now();
    const outcome = await this.deps.repo.insertJob({
      id: randomUUID(),
      host_id: host.id,
      product: host.agent_product,
      from_version: host.agent_version,
      target_version: release.version,
      target_commit: release.commit,
      state: 'pending',
      path: 'agent',
      created_ms: now,
      updated_ms: now,
      offered_ms: null,
      requested_by: actor.user?.username ?? 'system',
      output: null,
    });
    if (outcome.status === 'inserted') await this.audited('agent_update.pending', outcome.job, actor);
    return { job: agentUpdateView(outcome.job), created: outcome.status === 'inserted' };
  }

  private async checkEnabled(product: string): Promise<void> {
    const s = await this.deps.settings();
    if (!s.enabled) throw new AppError('update/disabled', 'Agent updates are turned off in the agent_updates settings');
    if (s.products.length > 0 && !s.products.includes(product)) throw new AppError('update/product_excluded', `Updates of ${product} are not enabled in the agent_updates settings`, { details: { product } });
  }

  /**
   * The job's bundle, built from the mirror on first use and rebuilt if its file went missing;
   * refused (`git/unsigned_release`) while signed release tags are required and its commit is none.
   */
  private async bundleFor(job: AgentUpdateJob): Promise<{ sha256: string }> {
    await this.deps.versions.checkRelease(job.product, job.target_commit);
    const file = bundleFile(this.deps.bundlesDir, job.product, job.target_version);
    const known = await this.deps.repo.bundle(job.product, job.target_version);
    if (known && known.commit === job.target_commit && bundleIntact(file, known.size)) return known;
    const mirror = await this.deps.versions.mirrorOf(job.product);
    const built = await this.deps.git.buildBundle(mirror, job.product, job.target_commit, file);
    await this.deps.repo.putBundle({ product: job.product, version: job.target_version, commit: job.target_commit, ...built, created_ms: this.deps.clock.now() });
    this.deps.logger.info({ product: job.product, version: job.target_version, sha256: built.sha256, size: built.size }, 'agent bundle built');
    return built;
  }

  /** Audits a job's change and streams it to the consoles. */
  private async audited(action: string, job: AgentUpdateJob, actor: Actor | null): Promise<void> {
    const v = agentUpdateView(job);
    this.deps.publish({
      type: 'agent_update.changed',
      data: { id: v.id, host_id: v.host_id, product: v.product, from_version: v.from_version, target_version: v.target_version, state: v.state, path: v.path, updated_at: v.updated_at },
    });
    await this.deps.audit.record({
      action,
      actor: actor ?? { user: null, ip: undefined },
      target: job.host_id,
      outcome: job.state === 'failed' ? 'failed' : 'ok',
      details: { job_id: job.id, product: job.product, from: job.from_version, to: job.target_version, state: job.state },
    });
  }
}

/**
 * Update jobs move with their agents' committed events (of any type, hidden ones too), on the
 * daemon that committed them, right after the commit: in commit order, one event after the other,
 * so a batch holding `started` and `success` moves the job through both. Returns the unsubscribe function.
 */
export function subscribeAgentUpdates(facts: Pick<Facts, 'subscribe'>, updates: Pick<AgentUpdatesService, 'onEvent'>, logger: Logger): () => void {
  let moving: Promise<void> = Promise.resolve();
  return facts.subscribe((committed) => {
    for (const fact of committed) {
      if (fact.type !== 'events.committed') continue;
      const due = fact.events.filter((c) => mayMoveUpdateJob(c.event.type));
      if (due.length === 0) continue;
      moving = moving.then(async () => {
        for (const c of due) {
          await updates.onEvent(c).catch((err: unknown) => logger.error({ err: errorSummary(err), event_id: c.event.event_id }, 'agent update job not moved'));
        }
      });
    }
  });
}
