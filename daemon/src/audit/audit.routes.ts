import express from 'express';
import { AuditQuerySchema } from '../../../shared/src/index.js';
import type { AuditService } from './audit.service.js';
import { type Authenticator, parseInput, requireUser, sendJson } from '../http/index.js';

/** `GET /api/v1/audit` (admin): filters `action` (or `prefix.`), `actor`, `target`, `outcome`, `from`, `before`, `limit`. */
export function createAuditRoutes(audit: AuditService, authenticator: Authenticator): express.Router {
  const r = express.Router();
  r.get('/api/v1/audit', requireUser(authenticator, 'admin'), async (req, res) => {
    sendJson(res, 200, { entries: await audit.list(parseInput(AuditQuerySchema, req.query)) });
  });
  return r;
}
