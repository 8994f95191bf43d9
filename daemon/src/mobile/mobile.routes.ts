import express, { type Request } from 'express';
import { EnrollmentCodeCreateSchema } from '../../../shared/src/index.js';
import { type Authenticator, parseInput, requireUser, restActor, sendJson } from '../http/index.js';
import type { MobileService } from './mobile.service.js';

/** The console's absolute base URL as this request reached it. */
function baseUrl(req: Request, basePath: string): string {
  return `${req.protocol}://${req.get('host') ?? 'localhost'}${basePath}/`;
}

/**
 * `POST /api/v1/mobile/enrollment-codes` (admin, 201): the code with its absolute `enroll_url`,
 * built from the host the request reached. The other mobile operations are in `mobile.operations.ts`.
 */
export function createMobileRoutes(mobile: MobileService, authenticator: Authenticator, basePath: string): express.Router {
  const r = express.Router();
  r.post('/api/v1/mobile/enrollment-codes', requireUser(authenticator, 'admin'), async (req, res) => {
    const issued = await mobile.issueCode(parseInput(EnrollmentCodeCreateSchema, req.body), restActor(req, res));
    sendJson(res, 201, { ...issued, enroll_url: new URL(issued.enroll_path, baseUrl(req, basePath)).toString() });
  });
  return r;
}
