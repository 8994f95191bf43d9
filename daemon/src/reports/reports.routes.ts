import express from 'express';
import { z } from 'zod';
import { type Authenticator, parseInput, requireUser, restActor, sendJson } from '../http/index.js';
import type { ReportsService } from './reports.service.js';
import { reportView } from './reports.views.js';

const ListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  before_ms: z.coerce.number().int().optional(),
});

/** Reports set no script and load nothing: opened directly, injected markup stays inert. */
const REPORT_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'self'";

/**
 * Daily reports: `GET /api/v1/reports`, `GET /api/v1/reports/{id}` (JSON), `GET /api/v1/reports/{id}/html`
 * (the report itself), `POST /api/v1/reports` (admin: generate and send now; 201).
 */
export function createReportsRoutes(reports: ReportsService, authenticator: Authenticator): express.Router {
  const r = express.Router();
  const operator = requireUser(authenticator, 'operator');
  const admin = requireUser(authenticator, 'admin');
  r.get('/api/v1/reports', operator, async (req, res) => {
    const q = parseInput(ListQuery, req.query);
    sendJson(res, 200, { reports: (await reports.list(q.limit, q.before_ms)).map(reportView) });
  });
  r.post('/api/v1/reports', admin, async (req, res) => {
    const { report, channels } = await reports.trigger(restActor(req, res));
    sendJson(res, 201, { report: reportView(report), channels });
  });
  r.get('/api/v1/reports/:id', operator, async (req, res) => {
    sendJson(res, 200, reportView(await reports.byId(String(req.params.id))));
  });
  r.get('/api/v1/reports/:id/html', operator, async (req, res) => {
    const report = await reports.byId(String(req.params.id));
    res.status(200).set({ 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': REPORT_CSP, 'Cache-Control': 'no-store' }).send(report.html);
  });
  return r;
}
