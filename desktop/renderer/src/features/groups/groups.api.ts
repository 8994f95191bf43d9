import type { z } from 'zod';
import type { GroupInputSchema, GroupMemberView, GroupPreviewSchema, GroupView } from '../../../../../shared/src/groups.schema';
import { call, trpc } from '../../api/trpc';

/** The operations declare loose outputs (id, name, counts); the daemon returns the shared views whole. */
export type GroupRow = GroupView;
export type GroupMember = GroupMemberView;
export type GroupSaveInput = z.output<typeof GroupInputSchema>;

export const groupsApi = {
  list: () => call(async () => (await trpc.groups.list.query()) as GroupView[]),
  preview: (input: z.input<typeof GroupPreviewSchema>) => call(async () => (await trpc.groups.preview.mutate(input)) as GroupMemberView[]),
  ofHost: (id: string) => call(() => trpc.groups.ofHost.query({ id })),
  create: (input: GroupSaveInput) => call(async () => (await trpc.groups.create.mutate(input)) as GroupView),
  update: (id: string, input: GroupSaveInput) => call(async () => (await trpc.groups.update.mutate({ id, ...input })) as GroupView),
  remove: (id: string) => call(() => trpc.groups.delete.mutate({ id })),
  userLimit: (id: string) => call(() => trpc.groups.userLimit.query({ id })),
  setUserLimit: (id: string, groupIds: string[] | null) => call(() => trpc.groups.setUserLimit.mutate({ id, group_ids: groupIds })),
};

/** A list typed one entry a line (or separated by commas) as the entries, blanks dropped. */
export const splitLines = (text: string): string[] => text.split(/[\n,]/).map((s) => s.trim()).filter(Boolean);
