import express from 'express';
import { MaintenanceActiveQuerySchema, MaintenanceWindowInputSchema } from '../../../shared/src/index.js';
import { type Authenticator, parseInput, requireUser, restActor, sendJson } from '../http/index.js';
import type { MaintenanceService } from './maintenance.service.js';

/**
 * Maintenance windows over REST (signed-in users read; admins — or monitors when the
 * `maintenance.managers` setting allows — change): `GET /api/v1/maintenance-windows`,
 * `GET /api/v1/maintenance-windows/active?host=`, `GET|PUT /api/v1/maintenance-windows/{id}`,
 * `POST /api/v1/maintenance-windows` (201), `POST /api/v1/maintenance-windows/{id}/end`.
 */
export function createMaintenanceRoutes(maintenance: MaintenanceService, authenticator: Authenticator): express.Router {
  const r = express.Router();
  const operator = requireUser(authenticator, 'operator');
  r.get('/api/v1/maintenance-windows', operator, async (_req, res) => {
    sendJson(res, 200, { windows: await maintenance.list() });
  });
  r.get('/api/v1/maintenance-windows/active', operator, async (req, res) => {
    const q = parseInput(MaintenanceActiveQuerySchema, req.query);
    sendJson(res, 200, { windows: await maintenance.active(q.host) });
  });
  r.get('/api/v1/maintenance-windows/:id', operator, async (req, res) => {
    sendJson(res, 200, await maintenance.byId(String(req.params.id)));
  });
  r.post('/api/v1/maintenance-windows', operator, async (req, res) => {
    const actor = restActor(req, res);
    sendJson(res, 201, await maintenance.create(parseInput(MaintenanceWindowInputSchema, req.body), { ...actor, user: actor.user! }));
  });
  r.put('/api/v1/maintenance-windows/:id', operator, async (req, res) => {
    const actor = restActor(req, res);
    sendJson(res, 200, await maintenance.update(String(req.params.id), parseInput(MaintenanceWindowInputSchema, req.body), { ...actor, user: actor.user! }));
  });
  r.post('/api/v1/maintenance-windows/:id/end', operator, async (req, res) => {
    const actor = restActor(req, res);
    sendJson(res, 200, await maintenance.end(String(req.params.id), { ...actor, user: actor.user! }));
  });
  return r;
}
