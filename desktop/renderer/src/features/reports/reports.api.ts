import { call, trpc } from '../../api/trpc';
import type { RouterOutputs } from '../../api/types';

export type ReportRow = RouterOutputs['reports']['list']['reports'][number];

export const reportsApi = {
  list: () => call(async () => (await trpc.reports.list.query({ limit: 60 })).reports),
  byId: (id: string) => call(() => trpc.reports.byId.query({ id })),
  generate: () => call(() => trpc.reports.generate.mutate()),
};
