import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { AuditEntryView, AuditQuerySchema, SessionUser } from '../../../shared/src/index.js';
import type { Clock } from '../clock.js';
import { errorSummary } from '../errors.js';
import type { AuditEntry, AuditQuery, AuditRepo } from '../store/index.js';

/** Who acted and from where: a tRPC context or `{ user: currentUser(res), ip }` fits. */
export interface Actor {
  user: SessionUser | null;
  ip: string | undefined;
}

export interface AuditInput {
  action: string;
  actor: Actor;
  /** For anonymous actions (a sign-in attempt), the username the request named. */
  username?: string;
  target?: string | null;
  outcome?: AuditEntry['outcome'];
  /** Names and counts only; never secret values. */
  details?: Record<string, unknown>;
}

function view({ at_ms, ...rest }: AuditEntry): AuditEntryView {
  return { ...rest, at: new Date(at_ms).toISOString() };
}

/**
 * The audit log: every sign-in, settings change, user and key change, problem
 * handling and host deletion. Recording never fails the action it describes: a store error is
 * logged at error level instead.
 */
function filters(query: z.output<typeof AuditQuerySchema>): Omit<AuditQuery, 'limit'> {
  return {
    action: query.action,
    actor: query.actor,
    target: query.target,
    outcome: query.outcome,
    from_ms: query.from ? Date.parse(query.from) : undefined,
    before_ms: query.before ? Date.parse(query.before) : undefined,
    before_id: query.before_id,
  };
}

export class AuditService {
  constructor(
    private readonly repo: AuditRepo,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  async record(input: AuditInput): Promise<void> {
    const entry: AuditEntry = {
      id: randomUUID(),
      at_ms: this.clock.now(),
      actor_id: input.actor.user?.id ?? null,
      actor_username: input.actor.user?.username ?? input.username?.slice(0, 256) ?? null,
      ip: input.actor.ip ?? null,
      action: input.action,
      target: input.target ?? null,
      outcome: input.outcome ?? 'ok',
      details: input.details ?? {},
    };
    try {
      await this.repo.insert(entry);
    } catch (err) {
      this.logger.error({ action: entry.action, target: entry.target, err: errorSummary(err) }, 'audit entry not stored');
    }
  }

  async list(query: z.output<typeof AuditQuerySchema>): Promise<AuditEntryView[]> {
    const entries = await this.repo.list({ ...filters(query), limit: query.limit });
    return entries.map(view);
  }

  /** How many entries match the filters (`before` and `before_id` included, `limit` ignored): the total a paged list shows. */
  count(query: z.output<typeof AuditQuerySchema>): Promise<number> {
    return this.repo.count(filters(query));
  }
}
