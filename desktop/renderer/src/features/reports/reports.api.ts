import { call, trpc } from '../../api/trpc';
import type { RouterOutputs } from '../../api/types';

export type ReportRow = RouterOutputs['reports']['list'][number];

export const reportsApi = {
  list: () => call(() => trpc.reports.list.query({ limit: 60 })),
  byId: (id: string) => call(() => trpc.reports.byId.query({ id })),
  generate: () => call(() => trpc.reports.generate.mutate()),
};
