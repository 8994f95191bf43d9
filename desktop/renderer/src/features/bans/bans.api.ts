import type { BanCreateInput, BanView } from '../../../../../shared/src/bans.schema';
import { call, trpc } from '../../api/trpc';

export type Ban = BanView;

export const bansApi = {
  list: () => call(() => trpc.bans.list.query({ status: 'all', limit: 200 })),
  create: (input: BanCreateInput) => call(() => trpc.bans.create.mutate(input)),
  apply: (id: string) => call(() => trpc.bans.apply.mutate({ id })),
  dismiss: (id: string) => call(() => trpc.bans.dismiss.mutate({ id })),
  unban: (id: string) => call(() => trpc.bans.unban.mutate({ id })),
};

/** Durations offered in the ban form, seconds; null: the `ssh_bans` setting's default. */
export const BAN_DURATIONS = [null, 3600, 21_600, 86_400, 604_800] as const;

/** How many of a ban's hosts have each outcome. */
export function outcomeCounts(ban: Ban): { applied: number; total: number; problems: number } {
  const applied = ban.hosts.filter((h) => h.outcome === 'applied' || h.outcome === 'removed').length;
  const problems = ban.hosts.filter((h) => h.outcome === 'failed' || h.outcome === 'unreachable' || h.outcome === 'unverified').length;
  return { applied, total: ban.hosts.length, problems };
}
