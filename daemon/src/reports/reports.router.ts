import { z } from 'zod';
import type { ReportsService } from './reports.service.js';
import { reportView } from './reports.views.js';
import { adminProcedure, operatorProcedure, router } from '../http/index.js';

export const ReportListSchema = z.strictObject({
  limit: z.number().int().min(1).max(200).default(50),
  before_ms: z.number().int().optional(),
});

/** tRPC `reports.*`: list and open daily reports (any user), generate one now (admin). */
export function reportsRouter(reports: ReportsService) {
  return router({
    list: operatorProcedure
      .input(ReportListSchema.optional())
      .query(async ({ input }) => {
        const q = ReportListSchema.parse(input ?? {});
        return (await reports.list(q.limit, q.before_ms)).map(reportView);
      }),
    byId: operatorProcedure.input(z.strictObject({ id: z.string().min(1).max(64) })).query(async ({ input }) => {
      const r = await reports.byId(input.id);
      return { ...reportView(r), html: r.html };
    }),
    generate: adminProcedure.mutation(async ({ ctx }) => {
      const { report, channels } = await reports.trigger(ctx);
      return { report: reportView(report), channels };
    }),
  });
}
