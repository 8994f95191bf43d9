import { call, trpc } from '../../api/trpc';
import type { RouterOutputs } from '../../api/types';

export type ReportRow = RouterOutputs['reports']['list']['reports'][number];

export const reportsApi = {
  /** `group`: that host group's reports only (empty: every report the user may see). */
  list: (group: string) => call(async () => (await trpc.reports.list.query({ limit: 60, ...(group ? { group } : {}) })).reports),
  byId: (id: string) => call(() => trpc.reports.byId.query({ id })),
  /** Of a host group: generated and kept, not sent. */
  generate: (group: string) => call(() => trpc.reports.generate.mutate(group ? { group_id: group } : {})),
};
