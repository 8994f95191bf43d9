import express from 'express';
import { ProblemActionBodySchema, ProblemAssignBodySchema, ProblemListQuerySchema } from '../../../shared/src/index.js';
import { type Authenticator, parseInput, parseQuery, requireUser, restActor, sendJson } from '../http/index.js';
import type { ProblemsService } from './problems.service.js';

/**
 * Problems (any signed-in user): list, one with its timeline, acknowledge, resolve, reopen and
 * assign, at both `/problems/...` and `/api/v1/problems/...`; the users a problem can be assigned to.
 */
export function createProblemsRoutes(problems: ProblemsService, authenticator: Authenticator): express.Router {
  const r = express.Router();
  const operator = requireUser(authenticator, 'operator');
  r.get('/api/v1/problem-assignees', operator, async (_req, res) => {
    sendJson(res, 200, { items: await problems.assignees() });
  });
  for (const base of ['/problems', '/api/v1/problems']) {
    r.get(base, operator, async (req, res) => {
      sendJson(res, 200, await problems.list(parseQuery(ProblemListQuerySchema, req.query), restActor(req, res).user?.id));
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
    r.post(`${base}/:id/reopen`, operator, async (req, res) => {
      const { comment } = parseInput(ProblemActionBodySchema, req.body);
      sendJson(res, 200, await problems.reopen(String(req.params.id), comment, restActor(req, res)));
    });
    r.post(`${base}/:id/assign`, operator, async (req, res) => {
      const body = parseInput(ProblemAssignBodySchema, req.body);
      sendJson(res, 200, await problems.assign(String(req.params.id), body.assignee_id, body.expected_assignee_id, restActor(req, res)));
    });
  }
  return r;
}
