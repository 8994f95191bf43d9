import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { CommandView, SessionView } from '../../../shared/src/index.js';
import type { Actor, AuditService } from '../audit/index.js';
import type { Bus } from '../bus.js';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import type { Fence } from '../jobs/index.js';
import type { ApiKeyRecord, CommandRecord, CommandResult, CommandType, Store } from '../store/index.js';
import { parseQwinsta } from '../winrm/index.js';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** Timing of the agent command channel. */
export interface CommandTiming {
  /** A delivered command without result goes out again after this long (the agent polls every 60 s). */
  redeliverAfterMs: number;
  /** A command without result this long after it was queued is `expired`. */
  expireAfterMs: number;
}

/** Most commands one poll hands out. */
const POLL_LIMIT = 20;

export function commandView(c: CommandRecord): CommandView {
  const sessions: SessionView[] | null =
    c.type === 'qwinsta' && c.result?.status === 'succeeded' ? (c.result.sessions ?? parseQwinsta(c.result.stdout)) : null;
  return {
    id: c.id,
    host_id: c.host_id,
    agent_instance_id: c.agent_instance_id,
    type: c.type,
    params: c.params,
    state: c.state,
    requested_by: c.requested_by,
    origin: c.origin,
    created_at: iso(c.created_ms)!,
    delivered_at: iso(c.delivered_ms),
    deliveries: c.deliveries,
    finished_at: iso(c.finished_ms),
    expires_at: iso(c.expires_ms)!,
    result: c.result && { status: c.result.status, stdout: c.result.stdout, stderr: c.result.stderr },
    sessions,
  };
}

/** The command as the agent reads it: every key present (PowerShell strict mode), `run_as` null. */
export function agentCommand(c: CommandRecord): { id: string; type: CommandType; params: Record<string, unknown>; run_as: null } {
  return { id: c.id, type: c.type, params: c.params, run_as: null };
}

export function commandNotFound(id: string): AppError {
  return new AppError('command/not_found', 'No such command', { details: { id } });
}

/**
 * The agent command channel: operators queue `qwinsta`/`logoff` for a host's agent; the agent
 * fetches them with its poll (each handed out once, again only after the delivery timed out) and
 * posts one result. Every state change is audited and published on the stream.
 */
export class CommandsService {
  constructor(
    private readonly store: Pick<Store, 'commands'>,
    private readonly bus: Pick<Bus, 'publish'>,
    private readonly clock: Clock,
    private readonly audit: Pick<AuditService, 'record'>,
    private readonly logger: Logger,
    private readonly timing: CommandTiming,
  ) {}

  async enqueue(input: {
    host_id: string;
    agent_instance_id: string;
    type: CommandType;
    params: Record<string, unknown>;
    origin: string;
    actor: Actor;
  }): Promise<CommandView> {
    const now = this.clock.now();
    const record: CommandRecord = {
      id: randomBytes(16).toString('base64url'),
      host_id: input.host_id,
      agent_instance_id: input.agent_instance_id,
      type: input.type,
      params: input.params,
      state: 'queued',
      requested_by: input.actor.user?.username ?? null,
      origin: input.origin,
      created_ms: now,
      updated_ms: now,
      delivered_ms: null,
      deliveries: 0,
      delivered_key_id: null,
      finished_ms: null,
      expires_ms: now + this.timing.expireAfterMs,
      result: null,
    };
    await this.store.commands.insert(record);
    await this.changed(record, 'command.queued', input.actor);
    return commandView(record);
  }

  /** `GET /api/v1/agent/commands`: what the agent runs now; an unknown agent gets none. */
  async poll(agentInstanceId: string, key: ApiKeyRecord): Promise<ReturnType<typeof agentCommand>[]> {
    const { delivered, expired } = await this.store.commands.claimForAgent(
      agentInstanceId,
      key.id,
      this.clock.now(),
      this.timing.redeliverAfterMs,
      POLL_LIMIT,
    );
    for (const c of expired) await this.changed(c, 'command.expired', null);
    for (const c of delivered) await this.changed(c, 'command.delivered', null, key);
    return delivered.map(agentCommand);
  }

  /**
   * `POST /api/v1/agent/commands/{id}/result`: accepted only with the key the command was handed to;
   * a succeeded qwinsta is parsed here, once, and stored parsed.
   */
  async result(id: string, by: { key: ApiKeyRecord; agentInstanceId: string | null }, result: CommandResult): Promise<CommandView> {
    const parse = result.status === 'succeeded' && (await this.store.commands.byId(id))?.type === 'qwinsta';
    const stored = parse ? { ...result, sessions: parseQwinsta(result.stdout) } : result;
    const outcome = await this.store.commands.complete(id, { keyId: by.key.id, agentInstanceId: by.agentInstanceId }, stored, this.clock.now());
    if (outcome.status === 'not_found') throw commandNotFound(id);
    if (outcome.status === 'already_finished') {
      throw new AppError('command/already_finished', 'This command already has a final state', {
        details: { id, state: outcome.command.state },
      });
    }
    await this.changed(outcome.command, `command.${outcome.command.state}`, null, by.key);
    return commandView(outcome.command);
  }

  /** The `command_expiry` leader job: expiring is a compare-and-set of open commands (idempotent), fenced first. */
  async expireDue(fence: Fence): Promise<void> {
    await fence.check();
    for (const c of await this.store.commands.expireDue(this.clock.now())) await this.changed(c, 'command.expired', null);
  }

  /** The host a command was queued for; null when there is no such command. */
  async hostOf(id: string): Promise<string | null> {
    return (await this.store.commands.byId(id))?.host_id ?? null;
  }

  async byId(id: string): Promise<CommandView> {
    const c = await this.store.commands.byId(id);
    if (!c) throw commandNotFound(id);
    return commandView(c);
  }

  async list(q: { host_id?: string; state?: CommandRecord['state']; before?: string; limit: number }): Promise<CommandView[]> {
    const rows = await this.store.commands.list({
      host_id: q.host_id,
      state: q.state,
      before_ms: q.before ? Date.parse(q.before) : undefined,
      limit: q.limit,
    });
    return rows.map(commandView);
  }

  /** `key`: the agent key that took or answered the command, named in the audit (never its secret). */
  private async changed(c: CommandRecord, action: string, actor: Actor | null, key?: ApiKeyRecord): Promise<void> {
    const view = commandView(c);
    this.bus.publish({ type: 'command.updated', data: view });
    await this.audit.record({
      action,
      actor: actor ?? { user: null, ip: undefined },
      username: actor ? undefined : `agent:${c.agent_instance_id}`.slice(0, 256),
      target: `host:${c.host_id}`,
      outcome: c.state === 'failed' || c.state === 'expired' ? 'failed' : 'ok',
      details: {
        command_id: c.id,
        type: c.type,
        params: c.params,
        state: c.state,
        deliveries: c.deliveries,
        ...(key && { api_key: { id: key.id, prefix: key.prefix, label: key.label } }),
      },
    });
    this.logger.info({ command_id: c.id, host_id: c.host_id, type: c.type, state: c.state }, 'command state changed');
  }
}
