import express from 'express';
import { ProblemActionBodySchema, ProblemListQuerySchema } from '../../../shared/src/index.js';
import { type Authenticator, parseInput, parseQuery, requireUser, restActor, sendJson } from '../http/index.js';
import type { ProblemsService } from './problems.service.js';

/**
 * Problems (any signed-in user): list, one with its timeline, acknowledge and resolve, at both
 * `/problems/...` and `/api/v1/problems/...`.
 */
export function createProblemsRoutes(problems: ProblemsService, authenticator: Authenticator): express.Router {
  const r = express.Router();
  const operator = requireUser(authenticator, 'operator');
  for (const base of ['/problems', '/api/v1/problems']) {
    r.get(base, operator, async (req, res) => {
      sendJson(res, 200, await problems.list(parseQuery(ProblemListQuerySchema, req.query)));
    });
    r.get(`${base}/:id`, operator, async (req, res) => {
      sendJson(res, 200, await problems.byId(String(req.params.id)));
    });
    r.post(`${base}/:id/acknowledge`, operator, async (req, res) => {
      const { comment } = parseInput(ProblemActionBodySchema, req.body);
      sendJson(res, 200, await problems.acknowledge(String(req.params.id), comment, restActor(req, res)));
    });
    r.post(`${base}/:id/resolve`, operator, async (req, res) => {
      const { comment } = parseInput(ProblemActionBodySchema, req.body);
      sendJson(res, 200, await problems.resolve(String(req.params.id), comment, restActor(req, res)));
    });
  }
  return r;
}
