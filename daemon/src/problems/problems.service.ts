import type { z } from 'zod';
import type { Page, ProblemDetailView, ProblemListQuerySchema, ProblemView } from '../../../shared/src/index.js';
import type { Actor, AuditService } from '../audit/index.js';
import type { Bus } from '../bus.js';
import type { Clock } from '../clock.js';
import { type CorrelationSettingsSource, problemView, streamProblem } from '../correlation/index.js';
import { allowedFrom, invalidTransition, nextStatus, type ProblemAction } from '../correlation/index.js';
import { AppError } from '../errors.js';
import type { EventsService } from '../events/index.js';
import type { HostsService } from '../hosts/index.js';
import { decodeCursor, encodeCursor, parseInstant } from '../events/index.js';
import type { Problem, Store } from '../store/index.js';

/** Longest timeline returned with a problem. */
export const TIMELINE_LIMIT = 500;

function problemNotFound(id: string): AppError {
  return new AppError('problem/not_found', 'No such problem', { details: { id } });
}

const STREAM_TYPE = { acknowledge: 'problem.acknowledged', resolve: 'problem.resolved' } as const;
const AUDIT_ACTION = { acknowledge: 'problem.acknowledged', resolve: 'problem.resolved' } as const;

/** Problems: list and detail with timeline, acknowledge and resolve (operator: admin or monitor). */
export class ProblemsService {
  constructor(
    private readonly store: Store,
    private readonly bus: Bus,
    private readonly clock: Clock,
    private readonly settings: CorrelationSettingsSource,
    private readonly audit: Pick<AuditService, 'record'>,
    private readonly hosts: HostsService,
    private readonly events: EventsService,
  ) {}

  async list(query: z.output<typeof ProblemListQuerySchema>): Promise<Page<ProblemView>> {
    const settings = await this.settings();
    const after = query.cursor ? decodeCursor(query.cursor, (v): v is { last_seen_ms: number; id: string } =>
      typeof v.last_seen_ms === 'number' && typeof v.id === 'string') : undefined;
    const hostIds = query.host ? await this.hosts.resolveIds(query.host) : undefined;
    const rows = await this.store.problems.list({
      statuses: query.status,
      host_ids: hostIds,
      type_prefix: query.type,
      rule: query.rule,
      severities: query.severity,
      from_ms: query.from ? parseInstant(query.from) : undefined,
      to_ms: query.to ? parseInstant(query.to) : undefined,
      hidden: settings.hiddenTypes,
      limit: query.limit + 1,
      after,
    });
    const items = rows.slice(0, query.limit);
    const last = items.at(-1);
    return {
      items: items.map(problemView),
      next_cursor: rows.length > query.limit && last ? encodeCursor({ last_seen_ms: last.last_seen_ms, id: last.id }) : null,
    };
  }

  private async get(id: string): Promise<Problem> {
    const problem = await this.store.problems.byId(id);
    if (!problem) throw problemNotFound(id);
    return problem;
  }

  async byId(id: string): Promise<ProblemDetailView> {
    const problem = await this.get(id);
    const links = await this.store.problems.timeline(id, TIMELINE_LIMIT);
    const views = await this.events.viewsByIds(links.map((l) => l.event_id));
    const timeline = links.flatMap((l) => {
      const view = views.get(l.event_id);
      return view ? [{ ...view, counted: l.counted }] : [];
    });
    return { ...problemView(problem), timeline };
  }

  async acknowledge(id: string, comment: string | undefined, actor: Actor): Promise<ProblemView> {
    return this.transition(id, 'acknowledge', comment, actor);
  }

  async resolve(id: string, comment: string | undefined, actor: Actor): Promise<ProblemView> {
    return this.transition(id, 'resolve', comment, actor);
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
      ...(action === 'acknowledge' ? { acknowledged_by: by } : { resolved_by: 'manual' as const, resolved_by_user: by }),
      ...(text ? { comment: { at_ms: now, by, action, text } } : {}),
    });
    if (!updated) {
      // Someone else changed it between the read and the compare-and-set.
      const latest = await this.get(id);
      throw invalidTransition(latest.status, action);
    }
    await this.audit.record({
      action: AUDIT_ACTION[action],
      actor,
      target: `problem:${id}`,
      details: { rule: updated.rule, type: updated.type, host_id: updated.host_id, commented: Boolean(text) },
    });
    this.bus.publish({ type: STREAM_TYPE[action], data: streamProblem(updated) });
    return problemView(updated);
  }
}
