import express from 'express';
import { DashboardRangeQuerySchema, EventListQuerySchema, HostListQuerySchema, ProblemActionBodySchema, ProblemAssignBodySchema, ProblemListQuerySchema } from '../../../shared/src/index.js';
import type { Authenticator } from '../auth/index.js';
import type { DashboardsService } from '../dashboards/index.js';
import type { EventsService } from '../events/index.js';
import type { HostsService } from '../hosts/index.js';
import type { ProblemsService } from '../problems/index.js';
import { sendJson } from './http-errors.js';
import { parseQuery } from './read-query.js';
import { requireUser, restActor } from './rest-auth.js';
import { parseInput } from './validate.js';

export interface ReadRoutesDeps {
  events: EventsService;
  hosts: HostsService;
  problems: ProblemsService;
  dashboards: DashboardsService;
  authenticator: Authenticator;
}

/**
 * The read API and problem handling (UI token): events, hosts (delete: admin), problems with
 * acknowledge/resolve at both `/problems/...` and `/api/v1/problems/...`, and the dashboard summary.
 */
export function createReadRoutes(deps: ReadRoutesDeps): express.Router {
  const { events, hosts, problems, dashboards } = deps;
  const r = express.Router();
  const operator = requireUser(deps.authenticator, 'operator');
  const admin = requireUser(deps.authenticator, 'admin');

  r.get('/api/v1/events', operator, async (req, res) => {
    sendJson(res, 200, await events.list(parseQuery(EventListQuerySchema, req.query)));
  });
  r.get('/api/v1/events/:id', operator, async (req, res) => {
    sendJson(res, 200, await events.byId(String(req.params.id)));
  });

  r.get('/api/v1/hosts', operator, async (req, res) => {
    const query = parseQuery(HostListQuerySchema, req.query);
    sendJson(res, 200, { items: await hosts.list(query.q, query.outdated === undefined ? undefined : query.outdated === 'true', query.sort, query.dir) });
  });
  r.get('/api/v1/hosts/:id', operator, async (req, res) => {
    sendJson(res, 200, await hosts.byId(String(req.params.id)));
  });
  r.delete('/api/v1/hosts/:id', admin, async (req, res) => {
    await hosts.remove(String(req.params.id), restActor(req, res));
    res.status(204).end();
  });

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

  r.get('/api/v1/dashboards/summary', operator, async (req, res) => {
    sendJson(res, 200, await dashboards.summary(parseQuery(DashboardRangeQuerySchema, req.query)));
  });
  return r;
}
