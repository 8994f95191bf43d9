import express from 'express';
import { type Authenticator, requireUser, sendJson } from '../http/index.js';
import type { DashboardsService } from './dashboards.service.js';

/** `GET /api/v1/dashboards/summary` (any signed-in user). */
export function createDashboardsRoutes(dashboards: DashboardsService, authenticator: Authenticator): express.Router {
  const r = express.Router();
  r.get('/api/v1/dashboards/summary', requireUser(authenticator, 'operator'), async (_req, res) => {
    sendJson(res, 200, await dashboards.summary());
  });
  return r;
}
