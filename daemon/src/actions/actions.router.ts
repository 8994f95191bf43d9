import { z } from 'zod';
import { CommandListQuerySchema, SessionIdSchema } from '../../../shared/src/index.js';
import { operatorProcedure, router } from '../http/index.js';
import type { CommandsService } from './commands.service.js';
import type { RemoteActionsService } from './remote-actions.service.js';

const Id = z.string().min(1).max(128);
const HostInput = z.strictObject({ host_id: Id });
const EventInput = z.strictObject({ event_id: Id });

/**
 * tRPC `actions.*` (admin and monitor): the same services as the REST routes. A mutation's answer
 * says which path ran (`winrm`, or `agent` with the queued command).
 */
export function actionsRouter(actions: RemoteActionsService, commands: CommandsService) {
  return router({
    sessions: operatorProcedure.input(HostInput).mutation(async ({ input, ctx }) => (await actions.listSessions(input.host_id, ctx)).body),
    logoff: operatorProcedure
      .input(z.strictObject({ host_id: Id, session_id: SessionIdSchema }))
      .mutation(async ({ input, ctx }) => (await actions.logoff(input.host_id, input.session_id, ctx)).body),
    eventSessions: operatorProcedure.input(EventInput).mutation(async ({ input, ctx }) => (await actions.eventSessions(input.event_id, ctx)).body),
    eventLogoff: operatorProcedure
      .input(z.strictObject({ event_id: Id, session_id: SessionIdSchema.optional() }))
      .mutation(async ({ input, ctx }) => (await actions.eventLogoff(input.event_id, input.session_id, ctx)).body),
    winrmTest: operatorProcedure.input(HostInput).mutation(({ input, ctx }) => actions.winrmTest(input.host_id, ctx)),
    sshTest: operatorProcedure.input(HostInput).mutation(({ input, ctx }) => actions.sshTest(input.host_id, ctx)),
    commands: operatorProcedure.input(CommandListQuerySchema).query(async ({ input }) => ({ items: await commands.list(input) })),
    command: operatorProcedure.input(z.strictObject({ id: Id })).query(({ input }) => commands.byId(input.id)),
  });
}
