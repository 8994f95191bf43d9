import express, { type Request } from 'express';
import { DevicePushSchema, EnrollmentCodeCreateSchema, EnrollRequestSchema, TokenRefreshSchema } from '../../../shared/src/index.js';
import { type Authenticator, clientAddress, currentUser, parseInput, requireUser, restActor, sendJson } from '../http/index.js';
import type { MobileService } from './mobile.service.js';

/** The console's absolute base URL as this request reached it. */
function baseUrl(req: Request, basePath: string): string {
  return `${req.protocol}://${req.get('host') ?? 'localhost'}${basePath}/`;
}

/**
 * Mobile REST API. Admin: `POST|GET /api/v1/mobile/enrollment-codes`,
 * `DELETE /api/v1/mobile/enrollment-codes/{id}`, `POST /devices/{id}/revoke`, `DELETE /devices/{id}`
 * (also under `/api/v1`). Any signed-in user: `GET /api/v1/devices` (their own unless admin).
 * Devices: `POST /api/v1/mobile/enroll` (with a code), `POST /api/v1/mobile/token` (refresh),
 * `PUT /api/v1/mobile/push` (own push subscription, with a device access token).
 */
export function createMobileRoutes(mobile: MobileService, authenticator: Authenticator, basePath: string): express.Router {
  const r = express.Router();
  const admin = requireUser(authenticator, 'admin');
  const operator = requireUser(authenticator, 'operator');

  r.post('/api/v1/mobile/enrollment-codes', admin, async (req, res) => {
    const issued = await mobile.issueCode(parseInput(EnrollmentCodeCreateSchema, req.body), restActor(req, res));
    sendJson(res, 201, { ...issued, enroll_url: new URL(issued.enroll_path, baseUrl(req, basePath)).toString() });
  });
  r.get('/api/v1/mobile/enrollment-codes', admin, async (_req, res) => {
    sendJson(res, 200, { codes: await mobile.listCodes() });
  });
  r.delete('/api/v1/mobile/enrollment-codes/:id', admin, async (req, res) => {
    await mobile.revokeCode(String(req.params.id), restActor(req, res));
    res.status(204).end();
  });
  r.post('/api/v1/mobile/enroll', async (req, res) => {
    sendJson(res, 200, await mobile.enroll(parseInput(EnrollRequestSchema, req.body), clientAddress(req)));
  });
  r.post('/api/v1/mobile/token', async (req, res) => {
    sendJson(res, 200, await mobile.refresh(parseInput(TokenRefreshSchema, req.body), clientAddress(req)));
  });
  r.put('/api/v1/mobile/push', operator, async (req, res) => {
    sendJson(res, 200, { device: await mobile.setPush(currentUser(res), parseInput(DevicePushSchema, req.body).push) });
  });
  r.get('/api/v1/devices', operator, async (_req, res) => {
    sendJson(res, 200, { devices: await mobile.list(currentUser(res)) });
  });
  for (const base of ['/devices', '/api/v1/devices']) {
    r.post(`${base}/:id/revoke`, admin, async (req, res) => {
      sendJson(res, 200, { device: await mobile.revoke(String(req.params.id), restActor(req, res)) });
    });
    r.delete(`${base}/:id`, admin, async (req, res) => {
      await mobile.delete(String(req.params.id), restActor(req, res));
      res.status(204).end();
    });
  }
  return r;
}
