import express from 'express';
import { z } from 'zod';
import { type Authenticator, parseInput, requireUser, restActor, sendJson } from '../http/index.js';
import type { AgentVersionsService } from './agent-versions.service.js';

export const GitTestInput = z.strictObject({ product: z.string().min(1).max(64) });

/**
 * Agent versions: `GET /api/v1/agents/versions` (any user), `POST /api/v1/agents/versions/refresh`
 * (admin: read every repository now), `POST /api/v1/settings/git_repos/test` (admin).
 */
export function createUpdatesRoutes(versions: AgentVersionsService, authenticator: Authenticator): express.Router {
  const r = express.Router();
  const operator = requireUser(authenticator, 'operator');
  const admin = requireUser(authenticator, 'admin');
  r.get('/api/v1/agents/versions', operator, async (_req, res) => {
    sendJson(res, 200, { versions: await versions.list() });
  });
  r.post('/api/v1/agents/versions/refresh', admin, async (req, res) => {
    sendJson(res, 200, { versions: await versions.refreshAll(restActor(req, res)) });
  });
  r.post('/api/v1/settings/git_repos/test', admin, async (req, res) => {
    const { product } = parseInput(GitTestInput, req.body);
    sendJson(res, 200, await versions.test(product, restActor(req, res)));
  });
  return r;
}
