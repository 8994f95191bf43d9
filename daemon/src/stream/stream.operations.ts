import { z } from 'zod';
import { type Authenticator, defineOperation } from '../http/index.js';
import type { StreamTickets } from './stream.tickets.js';

/** A single-use ticket for the live stream (EventSource cannot send a header); the stream itself stays in `stream.routes.ts`. */
export function streamOperations(tickets: StreamTickets, authenticator: Authenticator) {
  return [
    defineOperation({
      id: 'stream.ticket',
      summary: 'A single-use live stream ticket',
      role: 'operator',
      scope: 'none',
      method: 'POST',
      path: '/api/v1/stream/ticket',
      status: 201,
      trpc: false,
      output: z.looseObject({ ticket: z.string() }),
      handler: (_input, caller) => {
        // The stream it opens ends with the session of the token that asked for it.
        const session = caller.token === null ? null : authenticator.tokenSession(caller.token);
        return tickets.issue(caller.user, session && { session_id: session.sessionId, ends_ms: session.expiresMs });
      },
    }),
  ];
}
