import { z } from 'zod';
import { GroupInputSchema, GroupPreviewSchema, GroupUpdateSchema, UserGroupLimitSchema } from '../../../shared/src/index.js';
import { ByIdInput, defineOperation } from '../http/index.js';
import { hostNotFound } from '../errors.js';
import type { GroupsService } from './groups.service.js';

const Group = z.looseObject({ id: z.string(), name: z.string(), member_count: z.number() });
const Member = z.looseObject({ id: z.string(), hostname: z.string(), explicit: z.boolean(), by_rules: z.boolean() });
const Limit = z.object({ group_ids: z.array(z.string()).nullable() });
const CHANGE = { '404': 'No such group', '409': 'Another group has this name' };

/** Host groups: signed-in users read them and their members; admins create, change and delete them. */
export function groupsOperations(groups: GroupsService) {
  return [
    defineOperation({
      id: 'groups.list',
      summary: 'Host groups with their member counts',
      role: 'operator',
      scope: 'filtered',
      method: 'GET',
      path: '/api/v1/groups',
      envelope: 'groups',
      output: z.array(Group),
      handler: (_input, caller) => groups.list(caller.scope),
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
      scope: { host: (input) => input.id, notFound: (input) => hostNotFound(input.id) },
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
      scope: 'filtered',
      method: 'GET',
      path: '/api/v1/groups/{id}',
      input: ByIdInput,
      output: Group.extend({ members: z.array(Member) }),
      handler: (input, caller) => groups.byId(input.id, caller.scope),
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
      id: 'groups.userLimit',
      summary: 'The host groups a user is limited to (null: every host)',
      role: 'admin',
      method: 'GET',
      path: '/api/v1/users/{id}/host-groups',
      input: ByIdInput,
      output: Limit,
      handler: (input) => groups.limitOf(input.id),
    }),
    defineOperation({
      id: 'groups.setUserLimit',
      summary: 'Limit a monitor to host groups, or with null lift the limit',
      role: 'admin',
      method: 'PUT',
      path: '/api/v1/users/{id}/host-groups',
      input: ByIdInput.extend(UserGroupLimitSchema.shape),
      output: Limit,
      errors: { '404': 'No such user or group', '409': 'Admins see every host' },
      handler: (input, caller) => groups.setLimit(input.id, input.group_ids, caller),
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
      errors: { '404': 'No such group', '409': 'The approval policy names the group' },
      handler: async (input, caller) => {
        await groups.remove(input.id, caller);
        return { deleted: true as const };
      },
    }),
  ];
}
