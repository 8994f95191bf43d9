import { z } from 'zod';
import { HostListQuerySchema, HostPinSchema } from '../../../shared/src/index.js';
import { ByIdInput, defineOperation } from '../http/index.js';
import { hostNotFound } from '../errors.js';
import type { HostsService } from './hosts.service.js';

const Host = z.looseObject({ id: z.string(), hostname: z.string() });

/**
 * Hosts: list (`q`, `outdated`, `sort`, `dir`) and one with its inventory (any signed-in user);
 * delete, and pin or unpin where remote actions reach a host (admin).
 */
export function hostsOperations(hosts: HostsService) {
  return [
    defineOperation({
      id: 'hosts.list',
      summary: 'List hosts',
      role: 'operator',
      scope: 'filtered',
      method: 'GET',
      path: '/api/v1/hosts',
      input: HostListQuerySchema,
      output: z.looseObject({ items: z.array(Host) }),
      errors: { '404': 'No such host group' },
      handler: async (input, caller) => ({
        items: await hosts.list({ ...input, outdated: input.outdated === undefined ? undefined : input.outdated === 'true', within: caller.scope }),
      }),
    }),
    defineOperation({
      id: 'hosts.byId',
      summary: 'One host with its inventory',
      role: 'operator',
      scope: { host: (input) => input.id, notFound: (input) => hostNotFound(input.id) },
      method: 'GET',
      path: '/api/v1/hosts/{id}',
      input: ByIdInput,
      output: Host,
      handler: (input) => hosts.byId(input.id),
    }),
    defineOperation({
      id: 'hosts.pinAddress',
      summary: 'Pin where remote actions reach a host (address, WinRM HTTPS name)',
      role: 'admin',
      method: 'PUT',
      path: '/api/v1/hosts/{id}/action-address',
      restBody: 'pin',
      input: ByIdInput.extend({ pin: HostPinSchema }),
      output: Host,
      errors: { '409': 'The address is pinned to another host' },
      handler: (input, caller) => hosts.pin(input.id, input.pin, caller),
    }),
    defineOperation({
      id: 'hosts.unpinAddress',
      summary: 'Unpin a host’s action address',
      role: 'admin',
      method: 'DELETE',
      path: '/api/v1/hosts/{id}/action-address',
      input: ByIdInput,
      output: Host,
      handler: (input, caller) => hosts.unpin(input.id, caller),
    }),
    defineOperation({
      id: 'hosts.delete',
      summary: 'Delete a host with its events and problems',
      role: 'admin',
      method: 'DELETE',
      path: '/api/v1/hosts/{id}',
      status: 204,
      input: ByIdInput,
      output: z.object({ deleted: z.literal(true) }),
      handler: async (input, caller) => {
        await hosts.remove(input.id, caller);
        return { deleted: true as const };
      },
    }),
  ];
}
