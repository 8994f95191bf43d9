import { z } from 'zod';
import { GroupInputSchema, GroupPreviewSchema, GroupUpdateSchema } from '../../../shared/src/index.js';
import { ByIdInput, defineOperation } from '../http/index.js';
import type { GroupsService } from './groups.service.js';

const Group = z.looseObject({ id: z.string(), name: z.string(), member_count: z.number() });
const Member = z.looseObject({ id: z.string(), hostname: z.string(), explicit: z.boolean(), by_rules: z.boolean() });
const CHANGE = { '404': 'No such group', '409': 'Another group has this name' };

/** Host groups: signed-in users read them and their members; admins create, change and delete them. */
export function groupsOperations(groups: GroupsService) {
  return [
    defineOperation({
      id: 'groups.list',
      summary: 'Host groups with their member counts',
      role: 'operator',
      method: 'GET',
      path: '/api/v1/groups',
      envelope: 'groups',
      output: z.array(Group),
      handler: () => groups.list(),
    }),
    defineOperation({
      id: 'groups.preview',
      summary: 'The members a group with these hosts and rules would have now',
      role: 'admin',
      method: 'POST',
      path: '/api/v1/groups/preview',
      envelope: 'members',
      input: GroupPreviewSchema,
      output: z.array(Member),
      handler: (input) => groups.preview(input),
    }),
    defineOperation({
      id: 'groups.ofHost',
      summary: 'The groups a host is in',
      role: 'operator',
      method: 'GET',
      path: '/api/v1/hosts/{id}/groups',
      envelope: 'groups',
      input: ByIdInput,
      output: z.array(z.object({ id: z.string(), name: z.string() })),
      handler: (input) => groups.ofHost(input.id),
    }),
    defineOperation({
      id: 'groups.byId',
      summary: 'One host group with its members',
      role: 'operator',
      method: 'GET',
      path: '/api/v1/groups/{id}',
      input: ByIdInput,
      output: Group.extend({ members: z.array(Member) }),
      handler: (input) => groups.byId(input.id),
    }),
    defineOperation({
      id: 'groups.create',
      summary: 'Create a host group',
      role: 'admin',
      method: 'POST',
      path: '/api/v1/groups',
      status: 201,
      input: GroupInputSchema,
      output: Group,
      errors: { '409': CHANGE['409'] },
      handler: (input, caller) => groups.create(input, caller),
    }),
    defineOperation({
      id: 'groups.update',
      summary: 'Change a host group (the whole group again)',
      role: 'admin',
      method: 'PUT',
      path: '/api/v1/groups/{id}',
      input: GroupUpdateSchema,
      output: Group,
      errors: CHANGE,
      handler: ({ id, ...rest }, caller) => groups.update(id, rest, caller),
    }),
    defineOperation({
      id: 'groups.delete',
      summary: 'Delete a host group',
      role: 'admin',
      method: 'DELETE',
      path: '/api/v1/groups/{id}',
      status: 204,
      input: ByIdInput,
      output: z.object({ deleted: z.literal(true) }),
      handler: async (input, caller) => {
        await groups.remove(input.id, caller);
        return { deleted: true as const };
      },
    }),
  ];
}
