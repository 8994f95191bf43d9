import type { Logger } from 'pino';
import type { AccessTestResult, LogoffAnswer, SessionsAnswer } from '../../../shared/src/index.js';
import type { Actor, AuditService } from '../audit/index.js';
import type { Clock } from '../clock.js';
import { AppError } from '../errors.js';
import { hostNotFound } from '../hosts/index.js';
import type { LinuxShell, WindowsShell } from '../remote-shell/index.js';
import type { Host, Store } from '../store/index.js';
import { ActionRateLimiter, eventSessionId, gatewayTarget, gatewayTargetConfirmed, hostForTarget, isGatewayEvent, isSessionEvent } from './actions.rules.js';
import type { CommandsService } from './commands.service.js';
import type { WinRmHostTarget } from '../winrm/index.js';
import { actionTargetOf, verifiedTarget } from '../action-target.js';

export interface RemoteActionsDeps {
  store: Pick<Store, 'hosts' | 'events'>;
  commands: Pick<CommandsService, 'enqueue'>;
  audit: Pick<AuditService, 'record'>;
  clock: Clock;
  logger: Logger;
  /** WinRM to Windows hosts (sessions, logoff, access test). */
  windows: WindowsShell;
  /** SSH to Linux hosts (access test). */
  linux: LinuxShell;
  /** Remote actions one user may start per minute. */
  perMinute: number;
  /** Budget of one WinRM run and of one SSH probe. */
  timeoutMs: number;
}

/** WinRM errors after which the host's agent is asked instead: the host did not answer. */
const NOT_ANSWERING = new Set(['winrm/unreachable', 'winrm/timeout']);

type Answer<T> = { status: 200 | 202; body: T };

/**
 * Remote actions on hosts: session listing and logoff over WinRM when the Windows administrator
 * is configured and the host answers, else queued to the host's agent (202 with the command);
 * RD Gateway events act on the workstation they connected to, over WinRM only; WinRM and SSH
 * administrator access tests. Every action is rate-limited per user and audited (who, host,
 * what, outcome); credentials never leave the settings.
 */
export class RemoteActionsService {
  private readonly limiter: ActionRateLimiter;

  constructor(private readonly deps: RemoteActionsDeps) {
    this.limiter = new ActionRateLimiter(deps.perMinute, 60_000);
  }

  async listSessions(hostId: string, actor: Actor): Promise<Answer<SessionsAnswer>> {
    this.throttle(actor);
    const host = await this.windowsHost(hostId);
    return this.audited('actions.sessions_listed', actor, host, { origin: `host:${host.id}` }, () => this.sessionsOn(host, actor, `host:${host.id}`, true));
  }

  async logoff(hostId: string, sessionId: number, actor: Actor): Promise<Answer<LogoffAnswer>> {
    this.throttle(actor);
    const host = await this.windowsHost(hostId);
    return this.audited('actions.logoff', actor, host, { session_id: sessionId, origin: `host:${host.id}` }, () =>
      this.logoffOn(host, sessionId, actor, `host:${host.id}`, true),
    );
  }

  async eventSessions(eventId: string, actor: Actor): Promise<Answer<SessionsAnswer>> {
    this.throttle(actor);
    const { host, viaGateway } = await this.eventHost(eventId);
    const origin = `event:${eventId}`;
    return this.audited('actions.sessions_listed', actor, host, { event_id: eventId, origin }, () => this.sessionsOn(host, actor, origin, !viaGateway));
  }

  async eventLogoff(eventId: string, sessionId: number | undefined, actor: Actor): Promise<Answer<LogoffAnswer>> {
    this.throttle(actor);
    const stored = await this.deps.store.events.byId(eventId);
    const session = sessionId ?? eventSessionId(stored?.event.details);
    if (stored && session === null) {
      throw new AppError('actions/session_required', 'Name the session to log off: this event does not name one', { details: { event_id: eventId } });
    }
    const { host, viaGateway } = await this.eventHost(eventId);
    const origin = `event:${eventId}`;
    return this.audited('actions.logoff', actor, host, { event_id: eventId, session_id: session, origin }, () =>
      this.logoffOn(host, session!, actor, origin, !viaGateway),
    );
  }

  async winrmTest(hostId: string, actor: Actor): Promise<AccessTestResult> {
    this.throttle(actor);
    const host = await this.windowsHost(hostId);
    const target = await verifiedTarget(this.deps.store, host);
    const r = await this.deps.windows.test(target, this.deps.timeoutMs);
    const result = { ok: r.ok, detail: r.detail, duration_ms: r.durationMs };
    await this.record('actions.winrm_tested', actor, host, r.ok ? 'ok' : 'failed', { detail: r.detail, ...(r.code ? { code: r.code } : {}) });
    return result;
  }

  async sshTest(hostId: string, actor: Actor): Promise<AccessTestResult> {
    this.throttle(actor);
    const host = await this.deps.store.hosts.byId(hostId);
    if (!host) throw hostNotFound(hostId);
    const r = await this.deps.linux.test(await verifiedTarget(this.deps.store, host), this.deps.timeoutMs);
    await this.deps.store.hosts.setSshAdminOk(host.id, r.ok, this.deps.clock.now());
    await this.record('actions.ssh_tested', actor, host, r.ok ? 'ok' : 'failed', { detail: r.detail, target: r.host });
    return { ok: r.ok, detail: r.detail, duration_ms: r.durationMs };
  }

  private throttle(actor: Actor): void {
    const key = actor.user?.id ?? `ip:${actor.ip ?? '?'}`;
    const wait = this.limiter.take(key, this.deps.clock.now());
    if (wait !== null) {
      throw new AppError('actions/rate_limited', `Too many remote actions; retry in ${wait} s`, { details: { retry_after_s: wait } });
    }
  }

  private async windowsHost(hostId: string): Promise<Host> {
    const host = await this.deps.store.hosts.byId(hostId);
    if (!host) throw hostNotFound(hostId);
    if (host.os_family !== 'windows') {
      throw new AppError('actions/not_windows', 'Sessions can be listed and logged off on Windows hosts only', { details: { host_id: hostId } });
    }
    return host;
  }

  /** The host an event's session action runs on; for RD Gateway events the mapped workstation. */
  private async eventHost(eventId: string): Promise<{ host: Host; viaGateway: boolean }> {
    const stored = await this.deps.store.events.byId(eventId);
    if (!stored) throw new AppError('event/not_found', 'No such event', { details: { event_id: eventId } });
    const type = stored.event.type;
    if (!isSessionEvent(type)) {
      throw new AppError('actions/unsupported_event', `Session actions start from RD Gateway or RDP events, not ${type}`, {
        details: { event_id: eventId, type },
      });
    }
    if (!isGatewayEvent(type)) return { host: await this.windowsHost(stored.host_id), viaGateway: false };
    const target = gatewayTarget(stored.event.details);
    if (!target) {
      throw new AppError('actions/unsupported_event', 'This RD Gateway event names no target workstation (details.internal_ip)', {
        details: { event_id: eventId, type },
      });
    }
    const hosts = await this.deps.store.hosts.list();
    const match = hostForTarget(hosts, target);
    if (match.found) {
      const host = match.found;
      const verified = actionTargetOf(host, hosts);
      if (verified.verified && !gatewayTargetConfirmed(host, verified, target)) {
        throw new AppError(
          'action/target_unverified',
          `Only the agent of ${host.hostname} reports the RD Gateway target ${target}, and SAC acts on that host at ${verified.address}; an admin must pin ${target} to the host before SAC sends credentials there`,
          { details: { event_id: eventId, target, host_id: host.id, hostname: host.hostname } },
        );
      }
      return { host, viaGateway: true };
    }
    if (match.claimants.length === 0) {
      throw new AppError('host/not_found_for_target', `No registered Windows host matches the RD Gateway target ${target}`, {
        details: { event_id: eventId, target },
      });
    }
    const names = match.claimants.map((h) => h.hostname).sort();
    throw new AppError(
      'action/target_ambiguous',
      `The RD Gateway target ${target} is claimed by several hosts (${names.join(', ')}); an admin must pin the address to one of them`,
      { details: { event_id: eventId, target, hosts: match.claimants.map((h) => ({ id: h.id, hostname: h.hostname })) } },
    );
  }

  /**
   * Runs `viaWinRm` when WinRM is configured; when the host does not answer (or WinRM is not
   * configured) and `agentAllowed`, queues the command to the host's agent instead.
   */
  private async choosePath<T>(
    host: Host,
    agentAllowed: boolean,
    viaWinRm: (target: WinRmHostTarget) => Promise<T>,
    viaAgent: (agentInstanceId: string) => Promise<T>,
  ): Promise<T> {
    const agent = agentAllowed ? host.agent_instance_id : null;
    if (!agentAllowed || (await this.deps.windows.configured())) {
      try {
        // The target is checked before WinRM is tried: no credentials for an unverified host.
        const target = await verifiedTarget(this.deps.store, host);
        return await viaWinRm(target);
      } catch (err) {
        if (!agent || !(err instanceof AppError) || !NOT_ANSWERING.has(err.code)) throw err;
        this.deps.logger.info({ host_id: host.id, code: err.code }, 'WinRM did not answer; queuing to the agent');
      }
    }
    if (!agent) {
      throw new AppError('actions/no_path', 'Neither WinRM (configure the Windows administrator) nor an agent can reach this host', {
        details: { host_id: host.id },
      });
    }
    return viaAgent(agent);
  }

  private sessionsOn(host: Host, actor: Actor, origin: string, agentAllowed: boolean): Promise<Answer<SessionsAnswer>> {
    return this.choosePath<Answer<SessionsAnswer>>(
      host,
      agentAllowed,
      async (target) => {
        const r = await this.deps.windows.listSessions(target, this.deps.timeoutMs);
        return { status: 200, body: { path: 'winrm', host_id: host.id, target: r.host, sessions: r.sessions, raw: r.raw, duration_ms: r.durationMs } };
      },
      async (agent) => {
        const command = await this.deps.commands.enqueue({ host_id: host.id, agent_instance_id: agent, type: 'qwinsta', params: {}, origin, actor });
        return { status: 202, body: { path: 'agent', host_id: host.id, command } };
      },
    );
  }

  private logoffOn(host: Host, sessionId: number, actor: Actor, origin: string, agentAllowed: boolean): Promise<Answer<LogoffAnswer>> {
    return this.choosePath<Answer<LogoffAnswer>>(
      host,
      agentAllowed,
      async (target) => {
        const r = await this.deps.windows.logoff(target, sessionId, this.deps.timeoutMs);
        const output = [r.stdout, r.stderr].filter((s) => s.trim()).join('\n');
        return { status: 200, body: { path: 'winrm', host_id: host.id, target: r.host, session_id: sessionId, output, duration_ms: r.durationMs } };
      },
      async (agent) => {
        const command = await this.deps.commands.enqueue({
          host_id: host.id,
          agent_instance_id: agent,
          type: 'logoff',
          params: { session_id: sessionId },
          origin,
          actor,
        });
        return { status: 202, body: { path: 'agent', host_id: host.id, command } };
      },
    );
  }

  /** Runs an action and audits its outcome (the path it took, or the error code it failed with). */
  private async audited<T extends { path: string }>(
    action: string,
    actor: Actor,
    host: Host,
    details: Record<string, unknown>,
    run: () => Promise<Answer<T>>,
  ): Promise<Answer<T>> {
    try {
      const answer = await run();
      await this.record(action, actor, host, 'ok', { ...details, path: answer.body.path });
      return answer;
    } catch (err) {
      await this.record(action, actor, host, 'failed', { ...details, code: err instanceof AppError ? err.code : 'internal/unexpected' });
      throw err;
    }
  }

  private record(action: string, actor: Actor, host: Host, outcome: 'ok' | 'failed', details: Record<string, unknown>): Promise<void> {
    return this.deps.audit.record({ action, actor, target: `host:${host.id}`, outcome, details: { hostname: host.hostname, ...details } });
  }
}
