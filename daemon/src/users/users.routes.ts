import express from 'express';
import { UserCreateSchema, UserPatchSchema } from '../../../shared/src/index.js';
import { type Authenticator, parseInput, requireUser, restActor, sendJson } from '../http/index.js';
import type { UsersService } from './users.service.js';

/** Users for provisioning scripts (admin): `GET|POST /api/v1/users`, `PATCH|DELETE /api/v1/users/{id}`. */
export function createUsersRoutes(users: UsersService, authenticator: Authenticator): express.Router {
  const r = express.Router();
  const admin = requireUser(authenticator, 'admin');
  r.get('/api/v1/users', admin, async (_req, res) => {
    sendJson(res, 200, { users: await users.list() });
  });
  r.post('/api/v1/users', admin, async (req, res) => {
    sendJson(res, 201, await users.create(parseInput(UserCreateSchema, req.body), restActor(req, res)));
  });
  r.patch('/api/v1/users/:id', admin, async (req, res) => {
    sendJson(res, 200, await users.update(String(req.params.id), parseInput(UserPatchSchema, req.body), restActor(req, res)));
  });
  r.delete('/api/v1/users/:id', admin, async (req, res) => {
    await users.delete(String(req.params.id), restActor(req, res));
    res.status(204).end();
  });
  return r;
}
