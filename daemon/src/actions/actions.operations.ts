import { z } from 'zod';
import { CommandListQuerySchema, EventLogoffBodySchema } from '../../../shared/src/index.js';
import { type Caller, defineOperation } from '../http/index.js';
import { hostNotFound, invalidParameter } from '../errors.js';
import { eventNotFound } from '../events/index.js';
import { commandNotFound, type CommandsService } from './commands.service.js';
import type { RemoteActionsService } from './remote-actions.service.js';

const Id = z.string().min(1).max(128);
const HostInput = z.strictObject({ host_id: Id });
const EventInput = z.strictObject({ event_id: Id });
/** Which path ran: `winrm` with its answer, or `agent` with the queued command (REST 202). */
const ActionAnswer = z.looseObject({ path: z.enum(['winrm', 'agent']), host_id: z.string() });
const QUEUED = { status: 202, description: 'Queued for the host’s agent', when: (out: { path: string }) => out.path === 'agent' } as const;
const AccessTest = z.looseObject({ ok: z.boolean() });
const Command = z.looseObject({ id: z.string(), state: z.string() });
/** Actions on a host are reached by a caller limited to host groups only when the host is theirs. */
const ON_HOST = { host: (input: { host_id: string }) => input.host_id, notFound: (input: { host_id: string }) => hostNotFound(input.host_id) };
const NO_PATH = { '409': 'Not a Windows host, or neither WinRM nor its agent reaches it', '422': 'Not an RD Gateway or RDP sign-in event' };

/**
 * Remote actions (admin and monitor): a host's sessions and their logoff over WinRM or through
 * the agent (REST answers 202 when the agent's command was queued), the same from a sign-in
 * event, WinRM/SSH access tests, and the command list. The agents' command channel stays in
 * `actions.routes.ts`.
 */
export function actionsOperations(actions: RemoteActionsService, commands: CommandsService) {
  const hostSessions = async (input: { host_id: string }, caller: Caller<'operator'>) => (await actions.listSessions(input.host_id, caller)).body;
  return [
    // REST reads a host's sessions with GET, the console asks with a mutation (it runs a remote command): one handler, two declarations.
    defineOperation({
      id: 'actions.hostSessions',
      summary: 'A host’s sessions (over WinRM, or queued for its agent)',
      role: 'operator',
      scope: ON_HOST,
      method: 'GET',
      path: '/api/v1/hosts/{host_id}/sessions',
      trpc: false,
      input: HostInput,
      output: ActionAnswer,
      alternative: QUEUED,
      errors: NO_PATH,
      handler: hostSessions,
    }),
    defineOperation({ id: 'actions.sessions', summary: 'A host’s sessions', role: 'operator', scope: ON_HOST, method: 'POST', input: HostInput, output: ActionAnswer, handler: hostSessions }),
    defineOperation({
      id: 'actions.logoff',
      summary: 'Log a session off a host',
      role: 'operator',
      scope: ON_HOST,
      method: 'POST',
      path: '/api/v1/hosts/{host_id}/sessions/{session_id}/logoff',
      input: z.strictObject({ host_id: Id, session_id: z.coerce.number().int().min(1).max(65_535) }),
      output: ActionAnswer,
      alternative: QUEUED,
      errors: NO_PATH,
      handler: async (input, caller) => (await actions.logoff(input.host_id, input.session_id, caller)).body,
    }),
    defineOperation({
      id: 'actions.eventSessions',
      summary: 'Sessions of the host a sign-in event names',
      role: 'operator',
      scope: { host: (input) => actions.eventActionHosts(input.event_id), notFound: (input) => eventNotFound(input.event_id) },
      method: 'POST',
      path: '/api/v1/events/{event_id}/actions/sessions',
      input: EventInput,
      output: ActionAnswer,
      alternative: QUEUED,
      errors: NO_PATH,
      handler: async (input, caller) => (await actions.eventSessions(input.event_id, caller)).body,
    }),
    defineOperation({
      id: 'actions.eventLogoff',
      summary: 'Log off the session a sign-in event names',
      role: 'operator',
      scope: { host: (input) => actions.eventActionHosts(input.event_id), notFound: (input) => eventNotFound(input.event_id) },
      method: 'POST',
      path: '/api/v1/events/{event_id}/actions/logoff',
      input: EventLogoffBodySchema.extend(EventInput.shape),
      output: ActionAnswer,
      alternative: QUEUED,
      errors: NO_PATH,
      handler: async (input, caller) => (await actions.eventLogoff(input.event_id, input.session_id, caller)).body,
    }),
    defineOperation({
      id: 'actions.winrmTest',
      summary: 'Test WinRM administrator access to a host',
      role: 'operator',
      scope: ON_HOST,
      method: 'POST',
      path: '/api/v1/hosts/{host_id}/actions/winrm-test',
      aliases: ['/hosts/{host_id}/actions/winrm-test'],
      input: HostInput,
      output: AccessTest,
      errors: { '409': 'The host is not a Windows host' },
      handler: (input, caller) => actions.winrmTest(input.host_id, caller),
    }),
    defineOperation({
      id: 'actions.sshTest',
      summary: 'Test SSH administrator access to a host',
      role: 'operator',
      scope: ON_HOST,
      method: 'POST',
      path: '/api/v1/hosts/{host_id}/actions/ssh-test',
      input: HostInput,
      output: AccessTest,
      errors: { '409': 'No SSH administrator is configured' },
      handler: (input, caller) => actions.sshTest(input.host_id, caller),
    }),
    defineOperation({
      id: 'actions.commands',
      summary: 'Agent commands, newest first',
      role: 'operator',
      scope: { host: (input) => input.host_id ?? null, notFound: (input) => (input.host_id ? hostNotFound(input.host_id) : invalidParameter('host_id', 'is required for a user limited to host groups')) },
      method: 'GET',
      path: '/api/v1/commands',
      input: CommandListQuerySchema,
      output: z.looseObject({ items: z.array(Command) }),
      handler: async (input) => ({ items: await commands.list(input) }),
    }),
    defineOperation({
      id: 'actions.command',
      summary: 'One agent command',
      role: 'operator',
      scope: { host: (input) => commands.hostOf(input.id), notFound: (input) => commandNotFound(input.id) },
      method: 'GET',
      path: '/api/v1/commands/{id}',
      input: z.strictObject({ id: Id }),
      output: Command,
      handler: (input) => commands.byId(input.id),
    }),
  ];
}
