import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { ApprovalAction, ApprovalActionInput, ApprovalListView, ApprovalRequestView, ApprovalState, SessionUser, SettingsValue } from '../../../shared/src/index.js';
import type { Actor, AuditService } from '../audit/index.js';
import type { Clock } from '../clock.js';
import { AppError, errorSummary } from '../errors.js';
import type { Fence } from '../jobs/index.js';
import type { ApprovalRecord, ApprovalsRepo, UsersRepo } from '../store/index.js';
import { actionOf, approvalSummary, approvalView, mayAct, mayDecide, withinScope } from './approvals.rules.js';

/** A request a second person approved: handed to the action it runs, which then skips the policy. */
export interface Approved {
  id: string;
  requested_by: string;
  requested_by_id: string;
}

type ApprovalSettings = () => Promise<SettingsValue<'approvals'>>;

export interface ApprovalPolicyDeps {
  settings: ApprovalSettings;
  /** The ids of the hosts in any of these groups now (a group that no longer exists holds none). */
  groupHosts(groupIds: readonly string[]): Promise<ReadonlySet<string>>;
  /** The hosts a request acts on. */
  hostsOf(request: ApprovalActionInput): Promise<readonly string[]>;
}

/**
 * The approval policy as the gated actions see it: an action under the policy runs only with an
 * approval; without one it answers `409 approval/required` carrying the request to file. An
 * action is under the policy when it is required everywhere, or when a host it touches is now a
 * member of a group whose entry lists it; an action without hosts follows the everywhere list.
 */
export class ApprovalPolicy {
  constructor(private readonly deps: ApprovalPolicyDeps) {}

  /** Whether the policy holds `action` back now when it touches these hosts. */
  requires(action: ApprovalAction, hostIds: readonly string[]): Promise<boolean> {
    return this.holds(action, async () => hostIds);
  }

  async assert(request: ApprovalActionInput, approved: Approved | undefined): Promise<void> {
    if (approved) return;
    const action = actionOf(request);
    if (!(await this.holds(action, () => this.deps.hostsOf(request)))) return;
    throw new AppError('approval/required', 'This action needs a second person’s approval: request it with a reason', {
      details: { action, request },
    });
  }

  /** The hosts are looked up only when a group entry lists the action. */
  private async holds(action: ApprovalAction, hosts: () => Promise<readonly string[]>): Promise<boolean> {
    const settings = await this.deps.settings();
    if (settings.require.includes(action)) return true;
    const groups = settings.by_group.filter((entry) => entry.actions.includes(action)).map((entry) => entry.group);
    if (groups.length === 0) return false;
    const hostIds = await hosts();
    if (hostIds.length === 0) return false;
    const members = await this.deps.groupHosts(groups);
    return hostIds.some((id) => members.has(id));
  }
}

/** The details the audit log keeps of an approved run: who asked, under which request. */
export function approvalAudit(approved: Approved | undefined): Record<string, string> {
  return approved ? { approval_id: approved.id, requested_by: approved.requested_by } : {};
}

export interface ApprovalsDeps {
  repo: ApprovalsRepo;
  users: Pick<UsersRepo, 'list'>;
  /** The hosts a user may see and act on (null: every host), as the operations' host scope checks it. */
  scopeOf(user: SessionUser): Promise<ReadonlySet<string> | null>;
  settings: ApprovalSettings;
  policy: Pick<ApprovalPolicy, 'requires'>;
  clock: Clock;
  audit: Pick<AuditService, 'record'>;
  logger: Logger;
  /** The hosts a request acts on (and, for a ban, the address), checked (a missing host or event throws its 404). */
  plan(request: ApprovalActionInput): Promise<{ host_ids: string[]; hostnames: string[]; subject?: string }>;
  /** Runs an approved request as the approver; answers what it did, in words. */
  run(request: ApprovalActionInput, actor: Actor, approved: Approved): Promise<string>;
}

const notFound = (id: string) => new AppError('approval/not_found', 'No such approval request', { details: { id } });
const SYSTEM: Actor = { user: null, ip: undefined };

/**
 * Two-person approval: a held-back action becomes a request (who, what, which hosts, why) that
 * another user whose role allows the action approves or denies before it expires; the approved
 * action runs as the approver's decision, and the audit log names both. A decision moves a
 * request out of `pending` once, atomically, on any daemon.
 */
export class ApprovalsService {
  private readonly requestedListeners = new Set<(request: ApprovalRequestView, approvers: string[]) => Promise<void>>();

  constructor(private readonly deps: ApprovalsDeps) {}

  /** Told of each new request with the ids of the users who may decide it (Telegram asks them). */
  onRequested(listener: (request: ApprovalRequestView, approvers: string[]) => Promise<void>): void {
    this.requestedListeners.add(listener);
  }

  /** Newest first; for a caller limited to host groups (`within`), only requests all of whose hosts are theirs. */
  async list(q: { state?: ApprovalState; limit: number }, user: SessionUser, within?: ReadonlySet<string> | null): Promise<ApprovalListView> {
    const now = this.deps.clock.now();
    const visible = (r: ApprovalRecord) => withinScope(r, within);
    const [items, pending] = await Promise.all([this.deps.repo.list(q), this.deps.repo.list({ state: 'pending', limit: 500 })]);
    return {
      items: items.filter(visible).map(approvalView),
      pending_for_me: pending.filter((r) => visible(r) && r.expires_ms > now && mayDecide(user, r)).length,
    };
  }

  /** The hosts a request acts on (the host scope of its operations); null when there is no such request. */
  async hostsOf(id: string): Promise<string[] | null> {
    return (await this.deps.repo.byId(id))?.host_ids ?? null;
  }

  /** The hosts a request to be filed would act on (checked as filing checks them). */
  async hostsOfRequest(request: ApprovalActionInput): Promise<string[]> {
    return (await this.deps.plan(request)).host_ids;
  }

  async byId(id: string): Promise<ApprovalRequestView> {
    const r = await this.deps.repo.byId(id);
    if (!r) throw notFound(id);
    return approvalView(r);
  }

  async request(input: { request: ApprovalActionInput; reason: string }, actor: Actor & { user: SessionUser }): Promise<ApprovalRequestView> {
    const action = actionOf(input.request);
    if (!mayAct(actor.user, action)) throw new AppError('auth/forbidden', 'Your role may not do this action, so you may not request it');
    const { host_ids, hostnames, subject } = await this.deps.plan(input.request);
    if (!(await this.deps.policy.requires(action, host_ids))) {
      throw new AppError('approval/not_required', 'This action does not need approval: run it directly', { details: { action } });
    }
    const settings = await this.deps.settings();
    const now = this.deps.clock.now();
    const record: ApprovalRecord = {
      id: randomUUID(),
      action,
      request: input.request,
      summary: approvalSummary(input.request, hostnames, subject),
      host_ids,
      hostnames,
      reason: input.reason,
      requested_by_id: actor.user.id,
      requested_by: actor.user.username,
      requested_ms: now,
      expires_ms: now + settings.expiry_minutes * 60_000,
      state: 'pending',
      decided_by_id: null,
      decided_by: null,
      decided_ms: null,
      note: null,
      result: null,
    };
    await this.deps.repo.insert(record);
    await this.deps.audit.record({ action: 'approval.requested', actor, target: `approval:${record.id}`, details: { summary: record.summary, reason: record.reason } });
    const view = approvalView(record);
    const approvers = await this.approversOf(record);
    for (const listener of this.requestedListeners) {
      await listener(view, approvers).catch((err: unknown) => this.deps.logger.warn({ err: errorSummary(err), approval: record.id }, 'approvers not told of a request'));
    }
    return view;
  }

  /** Approves and runs the request as `actor`; the answer carries what running it did. */
  async approve(id: string, note: string | undefined, actor: Actor & { user: SessionUser }): Promise<ApprovalRequestView> {
    const r = await this.decidable(id, actor.user);
    if (!(await this.deps.repo.decide(id, { state: 'approved', decided_by_id: actor.user.id, decided_by: actor.user.username, decided_ms: this.deps.clock.now(), note: note ?? null }))) {
      throw await this.notPending(id);
    }
    await this.deps.audit.record({
      action: 'approval.approved',
      actor,
      target: `approval:${id}`,
      details: { summary: r.summary, requested_by: r.requested_by, reason: r.reason, ...(note ? { note } : {}) },
    });
    let result: { ok: boolean; detail: string };
    try {
      result = { ok: true, detail: await this.deps.run(r.request, actor, { id, requested_by: r.requested_by, requested_by_id: r.requested_by_id }) };
    } catch (err) {
      result = { ok: false, detail: err instanceof AppError ? `${err.code}: ${err.message}` : 'the action failed' };
      if (!(err instanceof AppError)) this.deps.logger.error({ err: errorSummary(err), approval: id }, 'approved action failed');
    }
    await this.deps.repo.setResult(id, result);
    return this.byId(id);
  }

  async deny(id: string, note: string | undefined, actor: Actor & { user: SessionUser }): Promise<ApprovalRequestView> {
    const r = await this.decidable(id, actor.user);
    if (!(await this.deps.repo.decide(id, { state: 'denied', decided_by_id: actor.user.id, decided_by: actor.user.username, decided_ms: this.deps.clock.now(), note: note ?? null }))) {
      throw await this.notPending(id);
    }
    await this.deps.audit.record({ action: 'approval.denied', actor, target: `approval:${id}`, details: { summary: r.summary, requested_by: r.requested_by, ...(note ? { note } : {}) } });
    return this.byId(id);
  }

  /** The requester (or an admin) withdraws a pending request. */
  async cancel(id: string, actor: Actor & { user: SessionUser }): Promise<ApprovalRequestView> {
    const r = await this.deps.repo.byId(id);
    if (!r) throw notFound(id);
    if (r.requested_by_id !== actor.user.id && actor.user.role !== 'admin') throw new AppError('auth/forbidden', 'Only the requester or an admin may cancel a request');
    if (!(await this.deps.repo.decide(id, { state: 'cancelled', decided_by_id: actor.user.id, decided_by: actor.user.username, decided_ms: this.deps.clock.now(), note: null }))) {
      throw await this.notPending(id);
    }
    await this.deps.audit.record({ action: 'approval.cancelled', actor, target: `approval:${id}`, details: { summary: r.summary } });
    return this.byId(id);
  }

  /** The leader's job: pending requests past their expiry become `expired` (and run nothing). */
  async expireDue(fence: Fence): Promise<void> {
    await fence.check();
    for (const r of await this.deps.repo.dueToExpire(this.deps.clock.now(), 200)) await this.expire(r);
  }

  /** A pending, unexpired request `user` may decide; an expired one is marked so first. */
  private async decidable(id: string, user: SessionUser): Promise<ApprovalRecord> {
    const r = await this.deps.repo.byId(id);
    if (!r) throw notFound(id);
    if (r.state !== 'pending') throw await this.notPending(id);
    if (r.expires_ms <= this.deps.clock.now()) {
      await this.expire(r);
      throw new AppError('approval/expired', 'The request expired before it was decided; request it again', { details: { id } });
    }
    if (user.id === r.requested_by_id) throw new AppError('approval/own_request', 'You cannot decide your own request: another person must');
    if (!mayAct(user, r.action)) throw new AppError('auth/forbidden', 'Your role may not do this action, so you may not approve it');
    return r;
  }

  /** Active users other than the requester whose role allows the action and whose host scope holds every host it touches. */
  private async approversOf(r: ApprovalRecord): Promise<string[]> {
    const candidates = (await this.deps.users.list()).filter((u) => u.active && mayDecide(u, r));
    const inScope = await Promise.all(candidates.map(async (u) => withinScope(r, await this.deps.scopeOf(u))));
    return candidates.filter((_, i) => inScope[i]).map((u) => u.id);
  }

  private async expire(r: ApprovalRecord): Promise<void> {
    if (!(await this.deps.repo.decide(r.id, { state: 'expired', decided_by_id: null, decided_by: null, decided_ms: this.deps.clock.now(), note: null }))) return;
    await this.deps.audit.record({ action: 'approval.expired', actor: SYSTEM, target: `approval:${r.id}`, details: { summary: r.summary, requested_by: r.requested_by } });
  }

  private async notPending(id: string): Promise<AppError> {
    const state = (await this.deps.repo.byId(id))?.state ?? 'unknown';
    return new AppError('approval/not_pending', `The request is already ${state}`, { details: { id, state } });
  }
}
