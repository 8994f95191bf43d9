import type { CommandView, SessionsAnswer, LogoffAnswer } from '../../../../../shared/src/actions.schema';
import { call, trpc } from '../../api/trpc';
import type { RouterInputs } from '../../api/types';

export type { CommandView, SessionsAnswer, LogoffAnswer };
export type CommandQuery = RouterInputs['actions']['commands'];

/** Where a session action runs: a host, or the host an event points at (RD Gateway: its target workstation). */
export type SessionSource = { kind: 'host'; id: string } | { kind: 'event'; id: string };

export const actionsApi = {
  sessions: (source: SessionSource): Promise<SessionsAnswer> =>
    call(() => (source.kind === 'host' ? trpc.actions.sessions.mutate({ host_id: source.id }) : trpc.actions.eventSessions.mutate({ event_id: source.id }))),
  logoff: (source: SessionSource, sessionId: number): Promise<LogoffAnswer> =>
    call(() =>
      source.kind === 'host'
        ? trpc.actions.logoff.mutate({ host_id: source.id, session_id: sessionId })
        : trpc.actions.eventLogoff.mutate({ event_id: source.id, session_id: sessionId }),
    ),
  winrmTest: (hostId: string) => call(() => trpc.actions.winrmTest.mutate({ host_id: hostId })),
  sshTest: (hostId: string) => call(() => trpc.actions.sshTest.mutate({ host_id: hostId })),
  commands: (q: CommandQuery) => call(() => trpc.actions.commands.query(q)),
};

/** Final command states: nothing more will happen to it. */
export const FINISHED = new Set(['succeeded', 'failed', 'expired']);
