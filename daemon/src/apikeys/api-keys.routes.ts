import express from 'express';
import { ApiKeyCreateSchema } from '../../../shared/src/index.js';
import type { ApiKeysAdmin } from './api-keys.admin.js';
import { type Authenticator, parseInput, requireUser, restActor, sendJson } from '../http/index.js';

/** Agent API keys (admin): `GET|POST /api/v1/api-keys`, `DELETE /api/v1/api-keys/{id}` (revoke). */
export function createApiKeysRoutes(keys: ApiKeysAdmin, authenticator: Authenticator): express.Router {
  const r = express.Router();
  const admin = requireUser(authenticator, 'admin');
  r.get('/api/v1/api-keys', admin, async (_req, res) => {
    sendJson(res, 200, { api_keys: await keys.list() });
  });
  r.post('/api/v1/api-keys', admin, async (req, res) => {
    sendJson(res, 201, await keys.create(parseInput(ApiKeyCreateSchema, req.body), restActor(req, res)));
  });
  r.delete('/api/v1/api-keys/:id', admin, async (req, res) => {
    await keys.revoke(String(req.params.id), restActor(req, res));
    res.status(204).end();
  });
  return r;
}
