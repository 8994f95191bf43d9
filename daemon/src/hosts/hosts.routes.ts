import express from 'express';
import { HostListQuerySchema, HostPinSchema } from '../../../shared/src/index.js';
import { type Authenticator, parseInput, parseQuery, requireUser, restActor, sendJson } from '../http/index.js';
import type { HostsService } from './hosts.service.js';

/**
 * Hosts: `GET /api/v1/hosts` (`q`, `outdated`, `sort`, `dir`), `GET /api/v1/hosts/{id}` with inventory,
 * `DELETE /api/v1/hosts/{id}` (admin; 204), `PUT`/`DELETE /api/v1/hosts/{id}/action-address` (admin: pin, unpin).
 */
export function createHostsRoutes(hosts: HostsService, authenticator: Authenticator): express.Router {
  const r = express.Router();
  const operator = requireUser(authenticator, 'operator');
  const admin = requireUser(authenticator, 'admin');
  r.get('/api/v1/hosts', operator, async (req, res) => {
    const query = parseQuery(HostListQuerySchema, req.query);
    sendJson(res, 200, { items: await hosts.list(query.q, query.outdated === undefined ? undefined : query.outdated === 'true', query.sort, query.dir) });
  });
  r.get('/api/v1/hosts/:id', operator, async (req, res) => {
    sendJson(res, 200, await hosts.byId(String(req.params.id)));
  });
  r.put('/api/v1/hosts/:id/action-address', admin, async (req, res) => {
    sendJson(res, 200, await hosts.pin(String(req.params.id), parseInput(HostPinSchema, req.body), restActor(req, res)));
  });
  r.delete('/api/v1/hosts/:id/action-address', admin, async (req, res) => {
    sendJson(res, 200, await hosts.unpin(String(req.params.id), restActor(req, res)));
  });
  r.delete('/api/v1/hosts/:id', admin, async (req, res) => {
    await hosts.remove(String(req.params.id), restActor(req, res));
    res.status(204).end();
  });
  return r;
}
