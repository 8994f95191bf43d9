import express from 'express';
import { z } from 'zod';
import { LoginEnrollConfirmSchema, LoginEnrollSchema, LoginSecondFactorSchema, TotpCodeSchema, TotpDisableSchema } from '../../../shared/src/index.js';
import { clientAddress, currentUser, parseInput, requireUser, restActor, sendJson } from '../http/index.js';
import type { AuthService } from './auth.service.js';
import type { TotpService } from './totp.service.js';

const UserIdSchema = z.string().min(1).max(64);

/**
 * Two-factor sign-in over REST. Second sign-in step (public, throttled like the password step):
 * `POST /api/v1/auth/login/totp`, `POST /api/v1/auth/login/enroll`, `POST /api/v1/auth/login/enroll/confirm`.
 * Own account: `GET /api/v1/auth/totp`, `POST /api/v1/auth/totp/enroll`, `POST /api/v1/auth/totp/confirm`,
 * `POST /api/v1/auth/totp/disable`. Admin: `POST /api/v1/users/{id}/totp/reset` (204).
 */
export function createTotpRoutes(auth: AuthService, totp: TotpService): express.Router {
  const r = express.Router();
  const operator = requireUser(auth, 'operator');
  const admin = requireUser(auth, 'admin');
  r.post('/api/v1/auth/login/totp', async (req, res) => {
    sendJson(res, 200, await auth.loginSecondFactor(parseInput(LoginSecondFactorSchema, req.body), clientAddress(req)));
  });
  r.post('/api/v1/auth/login/enroll', async (req, res) => {
    sendJson(res, 200, await auth.loginEnroll(parseInput(LoginEnrollSchema, req.body), clientAddress(req)));
  });
  r.post('/api/v1/auth/login/enroll/confirm', async (req, res) => {
    sendJson(res, 200, await auth.loginEnrollConfirm(parseInput(LoginEnrollConfirmSchema, req.body), clientAddress(req)));
  });
  r.get('/api/v1/auth/totp', operator, async (_req, res) => {
    sendJson(res, 200, await totp.status(currentUser(res)));
  });
  r.post('/api/v1/auth/totp/enroll', operator, async (_req, res) => {
    sendJson(res, 200, await totp.begin(currentUser(res)));
  });
  r.post('/api/v1/auth/totp/confirm', operator, async (req, res) => {
    sendJson(res, 200, await totp.confirm(currentUser(res), parseInput(TotpCodeSchema, req.body).code, restActor(req, res)));
  });
  r.post('/api/v1/auth/totp/disable', operator, async (req, res) => {
    sendJson(res, 200, await auth.disableSecondFactor(currentUser(res), parseInput(TotpDisableSchema, req.body).code, restActor(req, res)));
  });
  r.post('/api/v1/users/:id/totp/reset', admin, async (req, res) => {
    await totp.reset(parseInput(UserIdSchema, req.params.id), restActor(req, res));
    res.status(204).end();
  });
  return r;
}
