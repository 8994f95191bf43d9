import express from 'express';
import { EventListQuerySchema } from '../../../shared/src/index.js';
import { type Authenticator, parseQuery, requireUser, sendJson } from '../http/index.js';
import type { EventsService } from './events.service.js';

/** Events (any signed-in user): `GET /api/v1/events` (filters and cursor), `GET /api/v1/events/{id}`. */
export function createEventsRoutes(events: EventsService, authenticator: Authenticator): express.Router {
  const r = express.Router();
  const operator = requireUser(authenticator, 'operator');
  r.get('/api/v1/events', operator, async (req, res) => {
    sendJson(res, 200, await events.list(parseQuery(EventListQuerySchema, req.query)));
  });
  r.get('/api/v1/events/:id', operator, async (req, res) => {
    sendJson(res, 200, await events.byId(String(req.params.id)));
  });
  return r;
}
