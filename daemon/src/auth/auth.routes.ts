import express from 'express';
import { LoginRequestSchema, PasswordChangeSchema } from '../../../shared/src/index.js';
import type { AuthService, OwnPasswordChange } from './auth.service.js';
import { bearerToken, clientAddress, currentUser, parseInput, requireUser, restActor, sendJson } from '../http/index.js';

/**
 * `POST /api/v1/auth/login`, `GET /api/v1/auth/me`, `POST /api/v1/auth/renew`, `POST /api/v1/auth/logout`
 * (revokes the session on the server; 204), `POST /api/v1/auth/password` (own password; answers a new token).
 */
export function createAuthRoutes(auth: AuthService, users: OwnPasswordChange): express.Router {
  const r = express.Router();
  r.post('/api/v1/auth/login', async (req, res) => {
    sendJson(res, 200, await auth.login(parseInput(LoginRequestSchema, req.body), clientAddress(req)));
  });
  r.get('/api/v1/auth/me', requireUser(auth, 'operator'), (_req, res) => {
    sendJson(res, 200, { user: currentUser(res) });
  });
  r.post('/api/v1/auth/renew', requireUser(auth, 'operator'), async (req, res) => {
    sendJson(res, 200, await auth.renew(bearerToken(req) ?? ''));
  });
  r.post('/api/v1/auth/logout', requireUser(auth, 'operator'), async (req, res) => {
    await auth.logout(bearerToken(req) ?? '', restActor(req, res));
    res.status(204).end();
  });
  r.post('/api/v1/auth/password', requireUser(auth, 'operator'), async (req, res) => {
    auth.consoleOnly(currentUser(res));
    await users.changeOwnPassword(currentUser(res), parseInput(PasswordChangeSchema, req.body), restActor(req, res));
    sendJson(res, 200, await auth.renew(bearerToken(req) ?? ''));
  });
  return r;
}
