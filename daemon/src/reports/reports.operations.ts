import { z } from 'zod';
import { ByIdInput, defineOperation } from '../http/index.js';
import type { ReportsService } from './reports.service.js';
import { reportView } from './reports.views.js';

const ReportListQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  before_ms: z.coerce.number().int().optional(),
});
const Report = z.looseObject({ id: z.string(), day: z.string(), html_path: z.string() });
/** Reports set no script and load nothing: opened directly, injected markup stays inert. */
const REPORT_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'self'";

/** Daily reports: list and open them (any signed-in user; JSON with the HTML, or the HTML alone), generate and send one now (admin). */
export function reportsOperations(reports: ReportsService) {
  return [
    defineOperation({
      id: 'reports.list',
      summary: 'List daily reports, newest first',
      role: 'operator',
      method: 'GET',
      path: '/api/v1/reports',
      input: ReportListQuery,
      output: z.object({ reports: z.array(Report) }),
      handler: async (input) => ({ reports: (await reports.list(input.limit, input.before_ms)).map(reportView) }),
    }),
    defineOperation({
      id: 'reports.byId',
      summary: 'One daily report with its HTML',
      role: 'operator',
      method: 'GET',
      path: '/api/v1/reports/{id}',
      input: ByIdInput,
      output: Report.extend({ html: z.string() }),
      handler: async (input) => {
        const report = await reports.byId(input.id);
        return { ...reportView(report), html: report.html };
      },
    }),
    defineOperation({
      id: 'reports.html',
      summary: 'One daily report as HTML',
      role: 'operator',
      method: 'GET',
      path: '/api/v1/reports/{id}/html',
      trpc: false,
      produces: { contentType: 'text/html', headers: { 'Content-Security-Policy': REPORT_CSP } },
      input: ByIdInput,
      output: z.string(),
      handler: async (input) => (await reports.byId(input.id)).html,
    }),
    defineOperation({
      id: 'reports.generate',
      summary: 'Generate and send the daily report now',
      role: 'admin',
      method: 'POST',
      path: '/api/v1/reports',
      status: 201,
      output: z.looseObject({ report: Report, channels: z.array(z.unknown()) }),
      handler: async (_input, caller) => {
        const { report, channels } = await reports.trigger(caller);
        return { report: reportView(report), channels };
      },
    }),
  ];
}
