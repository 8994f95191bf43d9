import express from 'express';
import { LoginRequestSchema } from '../../../shared/src/index.js';
import type { AuthService } from '../auth/index.js';
import { sendJson } from './http-errors.js';
import { currentUser, requireUser } from './rest-auth.js';
import { parseInput } from './validate.js';

/** `POST /api/v1/auth/login`, `GET /api/v1/auth/me`, `POST /api/v1/auth/renew`. */
export function createAuthRoutes(auth: AuthService): express.Router {
  const r = express.Router();
  r.post('/api/v1/auth/login', async (req, res) => {
    sendJson(res, 200, await auth.login(parseInput(LoginRequestSchema, req.body), req.socket.remoteAddress));
  });
  r.get('/api/v1/auth/me', requireUser(auth, 'operator'), (_req, res) => {
    sendJson(res, 200, { user: currentUser(res) });
  });
  r.post('/api/v1/auth/renew', requireUser(auth, 'operator'), async (_req, res) => {
    sendJson(res, 200, await auth.renew(currentUser(res)));
  });
  return r;
}
