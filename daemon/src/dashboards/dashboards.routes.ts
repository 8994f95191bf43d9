import express from 'express';
import { DashboardRangeQuerySchema } from '../../../shared/src/index.js';
import { type Authenticator, parseQuery, requireUser, sendJson } from '../http/index.js';
import type { DashboardsService } from './dashboards.service.js';

/** `GET /api/v1/dashboards/summary?from=&to=` (any signed-in user). */
export function createDashboardsRoutes(dashboards: DashboardsService, authenticator: Authenticator): express.Router {
  const r = express.Router();
  r.get('/api/v1/dashboards/summary', requireUser(authenticator, 'operator'), async (req, res) => {
    sendJson(res, 200, await dashboards.summary(parseQuery(DashboardRangeQuerySchema, req.query)));
  });
  return r;
}
