import type { z } from 'zod';
import { SEVERITIES, type Page, type ProblemDetailView, type ProblemAssignee, type ProblemListQuerySchema, type ProblemSortKey, type ProblemView } from '../../../shared/src/index.js';
import type { Actor, AuditService } from '../audit/index.js';
import type { Clock } from '../clock.js';
import { type CorrelationSettingsSource, problemView } from '../correlation/index.js';
import { allowedFrom, invalidTransition, nextStatus, type ProblemAction } from '../correlation/index.js';
import { AppError } from '../errors.js';
import type { Facts } from '../facts.js';
import type { EventsService } from '../events/index.js';
import type { HostsService } from '../hosts/index.js';
import { decodeCursor, encodeCursor, parseInstant } from '../events/index.js';
import type { Problem, Store } from '../store/index.js';

/** Longest timeline returned with a problem. */
export const TIMELINE_LIMIT = 500;

function problemNotFound(id: string): AppError {
  return new AppError('problem/not_found', 'No such problem', { details: { id } });
}

/** The fact and the audit action of each operator transition. */
const CHANGE = { acknowledge: 'problem.acknowledged', resolve: 'problem.resolved', reopen: 'problem.reopened' } as const;

type ListCursor = { s: ProblemSortKey; d: 'asc' | 'desc'; v: number | string; id: string };

/** The value of a problem in the sort column (what the next page's keyset starts after). */
function sortValue(p: Problem, sort: ProblemSortKey): number | string {
  switch (sort) {
    case 'last_seen':
      return p.last_seen_ms;
    case 'first_seen':
      return p.first_seen_ms;
    case 'severity':
      return SEVERITIES.indexOf(p.severity);
    case 'count':
      return p.count;
    case 'hostname':
      return p.hostname;
  }
}

function assigneeChanged(current: Problem): AppError {
  return new AppError('problem/assignee_changed', current.assignee ? `The problem is now assigned to ${current.assignee}` : 'The problem is now unassigned', {
    details: { assignee_id: current.assignee_id, assignee: current.assignee },
  });
}

/** Problems: list and detail with timeline, acknowledge and resolve (operator: admin or monitor). */
export class ProblemsService {
  constructor(
    private readonly store: Pick<Store, 'problems' | 'users'>,
    private readonly facts: Pick<Facts, 'publish'>,
    private readonly clock: Clock,
    private readonly settings: CorrelationSettingsSource,
    private readonly audit: Pick<AuditService, 'record'>,
    private readonly hosts: HostsService,
    private readonly events: EventsService,
  ) {}

  /** `assignee=me` needs the caller: `meId` is the signed-in user's id. */
  async list(query: z.output<typeof ProblemListQuerySchema>, meId?: string): Promise<Page<ProblemView>> {
    const settings = await this.settings();
    const sort = query.sort ?? 'last_seen';
    const dir = query.dir ?? 'desc';
    // A cursor continues the order it was made for: one from another sort is refused, not misread.
    const after = query.cursor
      ? decodeCursor(query.cursor, (v): v is ListCursor =>
          v.s === sort && v.d === dir && (typeof v.v === 'number' || typeof v.v === 'string') && typeof v.id === 'string')
      : undefined;
    const assigneeId = query.assignee === 'me' ? (meId ?? null) : query.assignee === 'none' ? null : query.assignee;
    const hostIds = query.host ? await this.hosts.resolveIds(query.host) : undefined;
    const rows = await this.store.problems.list({
      statuses: query.status,
      host_ids: hostIds,
      type_prefix: query.type,
      rule: query.rule,
      severities: query.severity,
      from_ms: query.from ? parseInstant(query.from) : undefined,
      to_ms: query.to ? parseInstant(query.to) : undefined,
      ...(query.assignee ? { assignee_id: assigneeId } : {}),
      hidden: settings.hiddenTypes,
      limit: query.limit + 1,
      sort,
      dir,
      after: after ? { value: after.v, id: after.id } : undefined,
    });
    const items = rows.slice(0, query.limit);
    const last = items.at(-1);
    return {
      items: items.map(problemView),
      next_cursor:
        rows.length > query.limit && last ? encodeCursor({ s: sort, d: dir, v: sortValue(last, sort), id: last.id } satisfies ListCursor) : null,
    };
  }

  private async get(id: string): Promise<Problem> {
    const problem = await this.store.problems.byId(id);
    if (!problem) throw problemNotFound(id);
    return problem;
  }

  async byId(id: string): Promise<ProblemDetailView> {
    const problem = await this.get(id);
    const [links, facts, evidence] = await Promise.all([
      this.store.problems.timeline(id, TIMELINE_LIMIT),
      this.store.problems.facts(id),
      this.store.problems.evidence(id),
    ]);
    const views = await this.events.viewsByIds(links.map((l) => l.event_id));
    const timeline = links.flatMap((l) => {
      const view = views.get(l.event_id);
      return view ? [{ ...view, counted: l.counted }] : [];
    });
    return { ...problemView(problem), facts, evidence, timeline };
  }

  async acknowledge(id: string, comment: string | undefined, actor: Actor): Promise<ProblemView> {
    return this.transition(id, 'acknowledge', comment, actor);
  }

  async resolve(id: string, comment: string | undefined, actor: Actor): Promise<ProblemView> {
    return this.transition(id, 'resolve', comment, actor);
  }

  /** Who a problem can be assigned to: the active console users, by username. */
  async assignees(): Promise<ProblemAssignee[]> {
    return (await this.store.users.list())
      .filter((u) => u.active)
      .map((u) => ({ id: u.id, username: u.username, display_name: u.display_name }))
      .sort((a, b) => a.username.localeCompare(b.username));
  }

  /** Reopens a resolved problem (admin or monitor); 409 `problem/invalid_transition` when it is not resolved. */
  async reopen(id: string, comment: string | undefined, actor: Actor): Promise<ProblemView> {
    return this.transition(id, 'reopen', comment, actor);
  }

  /**
   * Assigns the problem to an active console user, or unassigns it (null). Any operator (admin or
   * monitor) may assign to anyone: handing a problem over is part of handling it. With
   * `expectedId` the change applies only while the assignee is still the one the caller saw.
   */
  async assign(id: string, assigneeId: string | null, expectedId: string | null | undefined, actor: Actor): Promise<ProblemView> {
    const current = await this.get(id);
    let username: string | null = null;
    if (assigneeId !== null) {
      const user = await this.store.users.byId(assigneeId);
      if (!user || !user.active) {
        throw new AppError('problem/assignee_unknown', 'The assignee must be an active console user', { details: { assignee_id: assigneeId } });
      }
      username = user.username;
    }
    if (expectedId !== undefined && (current.assignee_id ?? null) !== expectedId) throw assigneeChanged(current);
    const updated = await this.store.problems.assign(id, {
      assignee_id: assigneeId,
      assignee: username,
      expected_id: current.assignee_id ?? null,
      now_ms: this.clock.now(),
    });
    if (!updated) {
      // Someone else changed the assignee between the read and the compare-and-set.
      throw assigneeChanged(await this.get(id));
    }
    await this.audit.record({
      action: 'problem.assigned',
      actor,
      target: `problem:${id}`,
      details: { assignee_id: assigneeId, assignee: username, previous_assignee: current.assignee },
    });
    await this.facts.publish([{ type: 'problem.assigned', problem: updated }], 'service');
    return problemView(updated);
  }

  private async transition(id: string, action: ProblemAction, comment: string | undefined, actor: Actor): Promise<ProblemView> {
    const current = await this.get(id);
    const to = nextStatus(current.status, action);
    if (!to) throw invalidTransition(current.status, action);
    const now = this.clock.now();
    const by = actor.user?.username ?? 'unknown';
    const text = comment?.trim();
    const updated = await this.store.problems.transition(id, allowedFrom(action), {
      status: to,
      now_ms: now,
      ...(action === 'acknowledge'
        ? { acknowledged_by: by }
        : action === 'resolve'
          ? { resolved_by: 'manual' as const, resolved_by_user: by }
          : { reopen: true as const }),
      ...(text ? { comment: { at_ms: now, by, action, text } } : {}),
    });
    if (!updated) {
      // Someone else changed it between the read and the compare-and-set.
      const latest = await this.get(id);
      throw invalidTransition(latest.status, action);
    }
    await this.audit.record({
      action: CHANGE[action],
      actor,
      target: `problem:${id}`,
      details: { rule: updated.rule, type: updated.type, host_id: updated.host_id, commented: Boolean(text) },
    });
    await this.facts.publish([{ type: CHANGE[action], problem: updated }], 'service');
    return problemView(updated);
  }
}
