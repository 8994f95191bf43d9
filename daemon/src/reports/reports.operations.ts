import { z } from 'zod';
import { AppError } from '../errors.js';
import { ByIdInput, defineOperation } from '../http/index.js';
import type { ReportsService } from './reports.service.js';
import { reportView } from './reports.views.js';

const GroupId = z.string().min(1).max(64);
const ReportListQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  before_ms: z.coerce.number().int().optional(),
  /** Only the reports of this host group (its id). */
  group: GroupId.optional(),
});
const Report = z.looseObject({ id: z.string(), day: z.string(), html_path: z.string(), group_id: z.string().nullable() });
/** Reports set no script and load nothing: opened directly, injected markup stays inert. */
const REPORT_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'self'";

/**
 * Daily reports: list and open them (any signed-in user; JSON with the HTML, or the HTML alone;
 * limited to host groups: the reports of their groups), generate and send one now, or generate one
 * for a host group (admin).
 */
export function reportsOperations(reports: ReportsService) {
  /** A report covering a host outside a limited caller's groups (every fleet report) is answered as if it did not exist. */
  const ON_REPORT = { host: (input: { id: string }) => reports.hostsOf(input.id), notFound: () => new AppError('report/not_found', 'No such report') };
  return [
    defineOperation({
      id: 'reports.list',
      summary: 'List daily reports, newest first',
      role: 'operator',
      method: 'GET',
      path: '/api/v1/reports',
      scope: 'filtered',
      input: ReportListQuery,
      output: z.object({ reports: z.array(Report) }),
      handler: async (input, caller) => ({ reports: (await reports.list(input.limit, input.before_ms, input.group, caller.scope)).map(reportView) }),
    }),
    defineOperation({
      id: 'reports.byId',
      summary: 'One daily report with its HTML',
      role: 'operator',
      method: 'GET',
      path: '/api/v1/reports/{id}',
      scope: ON_REPORT,
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
      scope: ON_REPORT,
      input: ByIdInput,
      output: z.string(),
      handler: async (input) => (await reports.byId(input.id)).html,
    }),
    defineOperation({
      id: 'reports.generate',
      summary: 'Generate and send the daily report now; of a host group: generate it (kept, not sent)',
      role: 'admin',
      method: 'POST',
      path: '/api/v1/reports',
      status: 201,
      input: z.strictObject({ group_id: GroupId.optional() }),
      output: z.looseObject({ report: Report, channels: z.array(z.unknown()) }),
      errors: { '404': 'No such host group' },
      handler: async (input, caller) => {
        const { report, channels } = await reports.trigger(caller, input.group_id);
        return { report: reportView(report), channels };
      },
    }),
  ];
}
