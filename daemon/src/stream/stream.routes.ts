import express from 'express';
import type { SessionUser } from '../../../shared/src/index.js';
import { type Authenticator, errorBody, type ScopeOf, sendJson, sessionCredential } from '../http/index.js';
import type { TicketSession } from '../store/index.js';
import type { StreamHub } from './stream.service.js';
import type { StreamTickets } from './stream.tickets.js';
import { AppError } from '../errors.js';

/** A refused stream's client (EventSource retries on its own) is told to wait this long. */
const STREAM_RETRY_AFTER_S = 30;

/**
 * `GET /api/v1/stream/events` (SSE), authorised by `Authorization: Bearer`, the web console's session cookie or `?ticket=` (from the
 * `stream.ticket` operation); resume with `Last-Event-ID` or `?last_event_id=`.
 */
export function createStreamRoutes(hub: StreamHub, tickets: StreamTickets, authenticator: Authenticator, scopeOf: ScopeOf): express.Router {
  const r = express.Router();
  r.get('/api/v1/stream/events', async (req, res) => {
    // The web console's session cookie serves as a bearer token here: reading a stream changes nothing.
    const token = sessionCredential(req)?.token ?? null;
    const ticket = typeof req.query.ticket === 'string' ? req.query.ticket : null;
    let client: { user: SessionUser; session: TicketSession | null } | null = null;
    if (token) {
      const user = await authenticator.authenticate(token);
      const session = authenticator.tokenSession(token);
      client = user && { user, session: session && { session_id: session.sessionId, ends_ms: session.expiresMs } };
    } else if (ticket) {
      client = await tickets.redeem(ticket);
    }
    if (!client) return sendJson(res, 401, errorBody('auth/unauthorized', 'Sign in first, or pass a fresh stream ticket'));
    const header = req.headers['last-event-id'];
    const query = req.query.last_event_id;
    const lastEventId = typeof header === 'string' ? header : typeof query === 'string' ? query : null;
    const full = hub.capacityProblem(client.user.id);
    if (full === 'per_user') {
      throw new AppError('stream/too_many_per_user', 'Too many open live streams for this user; close one first', {
        details: { retry_after_s: STREAM_RETRY_AFTER_S },
      });
    }
    if (full === 'total') {
      throw new AppError('stream/too_many_clients', 'Too many open live streams on this server; retry later', {
        kind: 'operational',
        details: { retry_after_s: STREAM_RETRY_AFTER_S },
      });
    }
    // The stream lives as long as the token that opened it (or asked for its ticket), not longer.
    const end = client.session && { sessionId: client.session.session_id, inMs: tickets.remainingMs(client.session.ends_ms) };
    // A user limited to host groups gets only their hosts' frames (re-read on every heartbeat).
    hub.attach(res, client.user, lastEventId, end, await scopeOf(client.user));
  });
  return r;
}
