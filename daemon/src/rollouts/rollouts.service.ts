import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { AgentPinSetInput, AgentPinView, RolloutStartInput, RolloutState, RolloutView, StreamMessage } from '../../../shared/src/index.js';
import { approvalAudit, type ApprovalPolicy, type Approved } from '../approvals/index.js';
import type { Actor, AuditService } from '../audit/index.js';
import type { Clock } from '../clock.js';
import { AppError, errorSummary, hostNotFound } from '../errors.js';
import type { GroupsService } from '../groups/index.js';
import type { Fence } from '../jobs/index.js';
import type { AgentPinRecord, AgentUpdatesRepo, Host, RolloutHostRecord, RolloutRecord, RolloutsRepo, Store } from '../store/index.js';
import { isOutdated, type AgentUpdatesService, type AgentVersionsService } from '../updates/index.js';
import { assignRings, classifyHost, differs, countHosts, pinForbids, pinnedMax, rolloutHostIds, rolloutView, step } from './rollouts.rules.js';

export const rolloutNotFound = (id: string) => new AppError('rollout/not_found', 'No such rollout', { details: { id } });
const SYSTEM: Actor = { user: null, ip: undefined };
/** How often a step is retried when another daemon changed the rollout meanwhile. */
const MAX_RACES = 5;

export interface RolloutsDeps {
  repo: RolloutsRepo;
  store: Pick<Store, 'hosts'>;
  jobs: Pick<AgentUpdatesRepo, 'byId'>;
  updates: Pick<AgentUpdatesService, 'startRelease' | 'cancelUnoffered'>;
  versions: Pick<AgentVersionsService, 'release'>;
  groups: Pick<GroupsService, 'hostsOfAny' | 'ofHost' | 'list'>;
  /** Starting a rollout may need a second person's approval. */
  approvals: Pick<ApprovalPolicy, 'assert'>;
  clock: Clock;
  audit: Pick<AuditService, 'record'>;
  publish: (message: StreamMessage) => void;
  logger: Logger;
}

/**
 * Staged agent rollouts: a product moved to a release ring by ring through update jobs, each ring
 * judged by the health gate (`rollouts.rules.ts`) before the next; driven by the leader's job and
 * by the calls that change one, every change a compare-and-set on the stored rollout so several
 * daemons agree. Also the version pins no update passes, and rollbacks to the previous release.
 */
export class RolloutsService {
  constructor(private readonly deps: RolloutsDeps) {}

  /** Newest first; for a caller limited to host groups (`within`), only rollouts all of whose hosts are theirs. */
  async list(q: { state?: RolloutState; limit: number }, within: ReadonlySet<string> | null): Promise<RolloutView[]> {
    const records = (await this.deps.repo.list(q)).filter((r) => !within || rolloutHostIds(r).every((id) => within.has(id)));
    const versions = await this.versionsByHost();
    return records.map((r) => rolloutView(r, versions));
  }

  async byId(id: string): Promise<RolloutView> {
    const r = await this.deps.repo.byId(id);
    if (!r) throw rolloutNotFound(id);
    return rolloutView(r, await this.versionsByHost());
  }

  /** The hosts of a rollout (the host scope of its operations); null when there is no such rollout. */
  async hostsOf(id: string): Promise<string[] | null> {
    const r = await this.deps.repo.byId(id);
    return r ? rolloutHostIds(r) : null;
  }

  /** The hosts a rollout started with `input` would move, by name (what an approval request shows); checks the input as starting does. */
  async plan(input: RolloutStartInput): Promise<{ hosts: Host[]; release: { version: string; commit: string; previous_version: string | null } }> {
    const release = await this.deps.versions.release(input.product, input.target_version);
    const all = (await this.deps.store.hosts.list()).filter((h) => h.agent_product === input.product);
    const chosen = 'groups' in input.hosts ? await this.deps.groups.hostsOfAny(input.hosts.groups) : null;
    const hosts = all.filter((h) => (chosen ? chosen.has(h.id) : isOutdated(h.agent_version, release.version)));
    const ids = new Set(hosts.map((h) => h.id));
    const stray = input.canary.filter((id) => !ids.has(id));
    if (stray.length > 0) {
      throw new AppError('rollout/bad_canary', `Canary hosts must be among the rollout's ${input.product} hosts: ${stray.slice(0, 10).join(', ')} are not`, { details: { host_ids: stray.slice(0, 50) } });
    }
    if (hosts.length === 0) throw new AppError('rollout/no_hosts', `No ${input.product} host to move to ${release.version}`, { details: { product: input.product } });
    return { hosts, release };
  }

  /** Starts a rollout (its first ring at once); under the approval policy only with `approved`. */
  async start(input: RolloutStartInput, actor: Actor, approved?: Approved): Promise<RolloutView> {
    await this.deps.approvals.assert({ kind: 'rollout_start', ...input }, approved);
    const { hosts, release } = await this.plan(input);
    const now = this.deps.clock.now();
    const record: RolloutRecord = {
      id: randomUUID(),
      product: input.product,
      target_version: release.version,
      target_commit: release.commit,
      previous_version: release.previous_version,
      from: input.hosts,
      health: input.health,
      rings: assignRings(input.canary, input.waves, input.canary_soak_minutes, hosts),
      state: 'running',
      current_ring: 0,
      halt_reason: null,
      created_by: approved?.requested_by ?? actor.user?.username ?? 'system',
      approved_by: approved ? (actor.user?.username ?? null) : null,
      created_ms: now,
      updated_ms: now,
      finished_ms: null,
      rev: 0,
    };
    await this.deps.repo.insert(record);
    await this.deps.audit.record({
      action: 'rollout.started',
      actor,
      target: `rollout:${record.id}`,
      details: { product: record.product, target_version: record.target_version, hosts: hosts.length, rings: record.rings.length, ...approvalAudit(approved) },
    });
    return this.view(await this.advance(record.id, actor));
  }

  async pause(id: string, actor: Actor): Promise<RolloutView> {
    return this.view(await this.changed(id, actor, 'rollout.paused', (r) => {
      if (r.state !== 'running') throw notIn(r, 'running');
      return { ...r, state: 'paused' };
    }));
  }

  /** Resumes a paused or halted rollout; a halted ring is tried again: its failed hosts get new jobs, its updated ones stay. */
  async resume(id: string, actor: Actor): Promise<RolloutView> {
    await this.changed(id, actor, 'rollout.resumed', (r) => {
      if (r.state !== 'paused' && r.state !== 'halted') throw notIn(r, 'paused or halted');
      const retry = (h: RolloutHostRecord): RolloutHostRecord => (h.state === 'failed' ? { ...h, state: 'waiting', reason: null, job_id: null, job_ms: null } : h);
      const rings = r.rings.map((ring) => (ring.index === r.current_ring && ring.state === 'failed' ? { ...ring, state: 'waiting' as const, finished_ms: null, hosts: ring.hosts.map(retry) } : ring));
      return { ...r, state: 'running', halt_reason: null, rings };
    });
    return this.view(await this.advance(id, actor));
  }

  /** Aborts: no further ring starts, and update jobs of the rollout that no agent was offered yet are cancelled. */
  async abort(id: string, actor: Actor): Promise<RolloutView> {
    const aborted = await this.changed(id, actor, 'rollout.aborted', (r) => {
      if (r.state === 'aborted' || r.state === 'completed') throw notIn(r, 'running, paused or halted');
      return { ...r, state: 'aborted', finished_ms: this.deps.clock.now() };
    });
    const why = `Cancelled: rollout ${aborted.id} was aborted`;
    const cancelled = new Set<string>();
    for (const h of aborted.rings.flatMap((ring) => ring.hosts)) {
      if (h.state === 'updating' && h.job_id !== null && (await this.deps.updates.cancelUnoffered(h.job_id, why, actor))) cancelled.add(h.host_id);
    }
    if (cancelled.size === 0) return this.view(aborted);
    return this.view(await this.changed(id, actor, null, (r) => ({
      ...r,
      rings: r.rings.map((ring) => ({ ...ring, hosts: ring.hosts.map((h) => (cancelled.has(h.host_id) && h.state === 'updating' ? { ...h, state: 'skipped' as const, reason: 'aborted' } : h)) })),
    })));
  }

  /** Rolls one host of the rollout back to the previous release. */
  async rollbackHost(id: string, hostId: string, actor: Actor): Promise<RolloutView> {
    const r = await this.deps.repo.byId(id);
    if (!r) throw rolloutNotFound(id);
    if (!rolloutHostIds(r).includes(hostId)) throw new AppError('rollout/host_not_in_rollout', 'The host is not one of this rollout’s hosts', { details: { id, host_id: hostId } });
    return this.view(await this.rollback(r, [hostId], actor));
  }

  /** Rolls every host of one ring that was updated (or failed on the way) back to the previous release. */
  async rollbackRing(id: string, ringIndex: number, actor: Actor): Promise<RolloutView> {
    const r = await this.deps.repo.byId(id);
    if (!r) throw rolloutNotFound(id);
    const ring = r.rings[ringIndex];
    if (!ring) throw new AppError('rollout/no_such_ring', `The rollout has no ring ${ringIndex}`, { details: { id, ring: ringIndex } });
    const hosts = ring.hosts.filter((h) => h.state === 'updated' || h.state === 'failed').map((h) => h.host_id);
    if (hosts.length === 0) throw new AppError('rollout/nothing_to_roll_back', 'No host of this ring was updated', { details: { id, ring: ringIndex } });
    return this.view(await this.rollback(r, hosts, actor));
  }

  /** The leader's job: moves every unfinished rollout by its hosts' jobs and reports, the fence re-checked before each. */
  async advanceDue(fence: Fence): Promise<void> {
    for (const r of await this.deps.repo.unfinished()) {
      await fence.check();
      await this.advance(r.id, SYSTEM).catch((err: unknown) => this.deps.logger.error({ rollout: r.id, err: errorSummary(err) }, 'rollout not advanced'));
    }
  }

  // ---- pins ------------------------------------------------------------------------------------

  /** Pins (of one product), with their group's or host's name; for a limited caller only those about their hosts. */
  async pins(product: string | undefined, within: ReadonlySet<string> | null): Promise<AgentPinView[]> {
    const [pins, hosts, groups] = await Promise.all([this.deps.repo.pins(product), this.deps.store.hosts.list(), this.deps.groups.list()]);
    const hostNames = new Map(hosts.map((h) => [h.id, h.hostname]));
    const groupNames = new Map(groups.map((g) => [g.id, g.name]));
    const visible: AgentPinRecord[] = [];
    for (const p of pins) {
      const ids = p.host_id !== null ? [p.host_id] : [...(await this.deps.groups.hostsOfAny([p.group_id!]))];
      if (!within || (ids.length > 0 && ids.every((i) => within.has(i)))) visible.push(p);
    }
    return visible.map((p) => pinView(p, p.host_id !== null ? (hostNames.get(p.host_id) ?? null) : (groupNames.get(p.group_id!) ?? null)));
  }

  /** Sets (or replaces) the pin of a product for a group or a host. */
  async setPin(input: AgentPinSetInput, actor: Actor): Promise<AgentPinView> {
    let name: string;
    if ('host_id' in input.target) {
      const host = await this.deps.store.hosts.byId(input.target.host_id);
      if (!host) throw hostNotFound(input.target.host_id);
      name = host.hostname;
    } else {
      const groupId = input.target.group_id;
      const group = (await this.deps.groups.list()).find((g) => g.id === groupId);
      if (!group) throw new AppError('group/not_found', 'No such group', { details: { id: groupId } });
      name = group.name;
    }
    const stored = await this.deps.repo.putPin({
      id: randomUUID(),
      product: input.product,
      max_version: input.max_version,
      group_id: 'group_id' in input.target ? input.target.group_id : null,
      host_id: 'host_id' in input.target ? input.target.host_id : null,
      note: input.note,
      created_by: actor.user?.username ?? 'system',
      created_ms: this.deps.clock.now(),
    });
    await this.deps.audit.record({ action: 'agent_pin.set', actor, target: `agent_pin:${stored.id}`, details: { product: stored.product, max_version: stored.max_version, on: name } });
    return pinView(stored, name);
  }

  async removePin(id: string, actor: Actor): Promise<void> {
    const pin = await this.deps.repo.pinById(id);
    if (!pin || !(await this.deps.repo.removePin(id))) throw new AppError('agent_pin/not_found', 'No such pin', { details: { id } });
    await this.deps.audit.record({ action: 'agent_pin.removed', actor, target: `agent_pin:${id}`, details: { product: pin.product, max_version: pin.max_version } });
  }

  /** The highest version the pins let `host` reach; null when none applies. */
  async pinOf(host: Pick<Host, 'id' | 'agent_product'>): Promise<string | null> {
    const pins = await this.deps.repo.pins(host.agent_product);
    if (pins.length === 0) return null;
    const groups = new Set((await this.deps.groups.ofHost(host.id)).map((g) => g.id));
    return pinnedMax(pins, host.id, groups);
  }

  // ---- moving ----------------------------------------------------------------------------------

  /**
   * Moves a rollout as far as its facts allow now: steps it (`rules.step`), starts the ring the
   * step names (its hosts classified, their jobs created), and stores each change by
   * compare-and-set, stepping again on a fresh read when another daemon changed it meanwhile (the
   * jobs this attempt created that the winner's rollout does not name are cancelled then: they are
   * seconds old, and no agent was offered them).
   */
  private async advance(id: string, actor: Actor): Promise<RolloutRecord> {
    for (let race = 0; race < MAX_RACES; race++) {
      const before = await this.deps.repo.byId(id);
      if (!before) throw rolloutNotFound(id);
      let r = before;
      const created: string[] = [];
      for (;;) {
        const facts = await this.factsOf(r);
        const stepped = step(r, facts, this.deps.clock.now());
        r = stepped.record;
        if (stepped.start === null) break;
        r = await this.startRing(r, stepped.start, actor, created);
      }
      if (!differs(before, r)) return before;
      const next = { ...r, rev: before.rev + 1, updated_ms: this.deps.clock.now() };
      if (await this.deps.repo.update(next, before.rev)) {
        await this.published(before, next);
        return next;
      }
      await this.dropStrayJobs(id, created);
    }
    throw raced(id);
  }

  private async dropStrayJobs(id: string, created: readonly string[]): Promise<void> {
    if (created.length === 0) return;
    const named = new Set((await this.deps.repo.byId(id))?.rings.flatMap((ring) => ring.hosts.map((h) => h.job_id)) ?? []);
    for (const jobId of created) {
      if (!named.has(jobId)) await this.deps.updates.cancelUnoffered(jobId, `Cancelled: rollout ${id} moved on another daemon meanwhile`, SYSTEM);
    }
  }

  /** Classifies a ring's waiting hosts (pins, already on the target) and creates the update jobs of the others (their ids added to `created`). */
  private async startRing(r: RolloutRecord, index: number, actor: Actor, created: string[]): Promise<RolloutRecord> {
    const now = this.deps.clock.now();
    const pins = await this.deps.repo.pins(r.product);
    const ring = r.rings[index];
    const hosts: RolloutHostRecord[] = [];
    for (const h of ring.hosts) {
      const host = h.state === 'waiting' ? await this.deps.store.hosts.byId(h.host_id) : null;
      if (h.state !== 'waiting') {
        hosts.push(h);
        continue;
      }
      if (!host) {
        hosts.push({ ...h, state: 'failed' as const, reason: 'the host was deleted' });
        continue;
      }
      const groups = pins.some((p) => p.group_id !== null) ? new Set((await this.deps.groups.ofHost(host.id)).map((g) => g.id)) : new Set<string>();
      const verdict = classifyHost(host, r.target_version, pinnedMax(pins, host.id, groups));
      if (verdict.state === 'skipped') {
        hosts.push({ ...h, state: 'skipped' as const, reason: verdict.reason });
        continue;
      }
      try {
        const { job, created: inserted } = await this.deps.updates.startRelease(host, { version: r.target_version, commit: r.target_commit }, actor);
        if (inserted) created.push(job.id);
        hosts.push({ ...h, state: 'updating' as const, reason: null, job_id: job.id, job_ms: Date.parse(job.created_at) });
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        hosts.push({ ...h, state: 'failed' as const, reason: err.message.slice(0, 300) });
      }
    }
    const rings = r.rings.map((x) => (x.index === index ? { ...x, state: 'updating' as const, started_ms: now, hosts } : x));
    return { ...r, rings, current_ring: index };
  }

  /**
   * Creates a rollback job to the previous release for each host, and marks the hosts `rolled_back`;
   * a host with another update under way is left alone (refused when no host could be rolled back).
   */
  private async rollback(r: RolloutRecord, hostIds: string[], actor: Actor): Promise<RolloutRecord> {
    if (r.previous_version === null) throw new AppError('rollout/no_previous_release', `No release of ${r.product} older than ${r.target_version} is known`, { details: { id: r.id } });
    // Verified as every release is (a bundle only from a verified tag); the job targets its commit.
    const previous = await this.deps.versions.release(r.product, r.previous_version);
    const jobs = new Map<string, string>();
    const busy: string[] = [];
    for (const hostId of hostIds) {
      const host = await this.deps.store.hosts.byId(hostId);
      if (!host) throw hostNotFound(hostId);
      if (pinForbids(await this.pinOf(host), previous.version)) continue;
      const { job } = await this.deps.updates.startRelease(host, { version: previous.version, commit: previous.commit }, actor);
      if (job.target_version === previous.version) jobs.set(hostId, job.id);
      else busy.push(`${host.hostname} (to ${job.target_version})`);
    }
    if (jobs.size === 0 && busy.length > 0) {
      throw new AppError('rollout/host_busy', `Another update is under way on ${busy.slice(0, 10).join(', ')}: let it finish first`, { details: { id: r.id } });
    }
    return this.changed(r.id, actor, 'rollout.rolled_back', (cur) => ({
      ...cur,
      rings: cur.rings.map((ring) => ({
        ...ring,
        hosts: ring.hosts.map((h) => (jobs.has(h.host_id) ? { ...h, state: 'rolled_back' as const, reason: `rolled back to ${previous.version}`, job_id: jobs.get(h.host_id)!, job_ms: null } : h)),
      })),
    }), { hosts: hostIds.length, to: previous.version });
  }

  /** Applies `edit` by compare-and-set (re-read on a race), audits it under `action` (unless null) and streams it. */
  private async changed(id: string, actor: Actor, action: string | null, edit: (r: RolloutRecord) => RolloutRecord, details: Record<string, unknown> = {}): Promise<RolloutRecord> {
    for (let race = 0; race < MAX_RACES; race++) {
      const before = await this.deps.repo.byId(id);
      if (!before) throw rolloutNotFound(id);
      const next = { ...edit(before), rev: before.rev + 1, updated_ms: this.deps.clock.now() };
      if (!(await this.deps.repo.update(next, before.rev))) continue;
      if (action) await this.deps.audit.record({ action, actor, target: `rollout:${id}`, details: { product: next.product, target_version: next.target_version, ...details } });
      await this.published(before, next);
      return next;
    }
    throw raced(id);
  }

  /** Streams the change and audits the rollout's own moves: a ring started or passed, a halt, the completion. */
  private async published(before: RolloutRecord, after: RolloutRecord): Promise<void> {
    this.deps.publish({
      type: 'rollout.changed',
      data: {
        id: after.id,
        product: after.product,
        target_version: after.target_version,
        state: after.state,
        current_ring: after.current_ring,
        counts: countHosts(after.rings),
        host_ids: rolloutHostIds(after),
        updated_at: new Date(after.updated_ms).toISOString(),
      },
    });
    const details = { product: after.product, target_version: after.target_version, ring: after.current_ring };
    if (before.state === 'running' && after.state === 'halted') {
      await this.deps.audit.record({ action: 'rollout.halted', actor: SYSTEM, target: `rollout:${after.id}`, outcome: 'failed', details: { ...details, reason: after.halt_reason } });
    } else if (before.state === 'running' && after.state === 'completed') {
      await this.deps.audit.record({ action: 'rollout.completed', actor: SYSTEM, target: `rollout:${after.id}`, details });
    } else if (before.current_ring !== after.current_ring) {
      await this.deps.audit.record({ action: 'rollout.ring_started', actor: SYSTEM, target: `rollout:${after.id}`, details });
    }
  }

  private async factsOf(r: RolloutRecord) {
    const jobIds = r.rings.flatMap((ring) => ring.hosts.filter((h) => h.state === 'updating' && h.job_id !== null).map((h) => h.job_id!));
    const jobs = new Map((await Promise.all(jobIds.map((id) => this.deps.jobs.byId(id)))).flatMap((j) => (j ? [[j.id, j] as const] : [])));
    const hostIds = r.rings.flatMap((ring) => ring.hosts.filter((h) => h.state === 'updating').map((h) => h.host_id));
    const hosts = new Map((await Promise.all(hostIds.map((id) => this.deps.store.hosts.byId(id)))).flatMap((h) => (h ? [[h.id, h] as const] : [])));
    return { job: (id: string) => jobs.get(id) ?? null, host: (id: string) => hosts.get(id) ?? null };
  }

  private async versionsByHost(): Promise<Map<string, string>> {
    return new Map((await this.deps.store.hosts.list()).map((h) => [h.id, h.agent_version]));
  }

  private async view(r: RolloutRecord): Promise<RolloutView> {
    return rolloutView(r, await this.versionsByHost());
  }
}

function pinView(p: AgentPinRecord, name: string | null): AgentPinView {
  return {
    id: p.id,
    product: p.product,
    max_version: p.max_version,
    group_id: p.group_id,
    host_id: p.host_id,
    target_name: name,
    note: p.note,
    created_by: p.created_by,
    created_at: new Date(p.created_ms).toISOString(),
  };
}

function notIn(r: RolloutRecord, wanted: string): AppError {
  return new AppError('rollout/bad_state', `The rollout is ${r.state}, not ${wanted}`, { details: { id: r.id, state: r.state } });
}

function raced(id: string): AppError {
  return new AppError('rollout/busy', 'The rollout kept changing meanwhile; try again', { details: { id } });
}
