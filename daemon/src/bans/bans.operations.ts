import { z } from 'zod';
import { BanCreateInputSchema, BanListQuerySchema } from '../../../shared/src/index.js';
import { ByIdInput, defineOperation } from '../http/index.js';
import type { BansService } from './bans.service.js';

const Ban = z.looseObject({ id: z.string(), address: z.string(), status: z.string(), hosts: z.array(z.looseObject({ host_id: z.string(), outcome: z.string() })) });
const REFUSED = { '400': 'Not one IPv4 or IPv6 address, or an address on the never-ban list (`ssh_ban/never_ban`)' };

/** Fleet SSH bans: signed-in users read them (limited to host groups: those applied on their hosts); admins ban, apply proposals, dismiss and unban. */
export function bansOperations(bans: BansService) {
  return [
    defineOperation({
      id: 'bans.list',
      summary: 'Fleet SSH bans, newest first',
      role: 'operator',
      method: 'GET',
      path: '/api/v1/bans',
      envelope: 'bans',
      scope: 'filtered',
      input: BanListQuerySchema,
      output: z.array(Ban),
      handler: (input, caller) => bans.list(input, caller.scope),
    }),
    defineOperation({
      id: 'bans.byId',
      summary: 'One fleet SSH ban with each host’s result',
      role: 'operator',
      method: 'GET',
      path: '/api/v1/bans/{id}',
      scope: 'filtered',
      input: ByIdInput,
      output: Ban,
      errors: { '404': 'No such ban (or, to a user limited to host groups, none applied on their hosts)' },
      handler: (input, caller) => bans.byId(input.id, caller.scope),
    }),
    defineOperation({
      id: 'bans.create',
      summary: 'Ban an address (typed, or an event’s or a problem’s source) on all Linux hosts or listed hosts',
      role: 'admin',
      method: 'POST',
      path: '/api/v1/bans',
      status: 201,
      input: BanCreateInputSchema,
      output: Ban,
      errors: { ...REFUSED, '404': 'No such event or problem', '409': 'The address is already banned' },
      handler: (input, caller) => bans.create(input, caller),
    }),
    defineOperation({
      id: 'bans.apply',
      summary: 'Apply a proposed ban',
      role: 'admin',
      method: 'POST',
      path: '/api/v1/bans/{id}/apply',
      input: ByIdInput,
      output: Ban,
      errors: { ...REFUSED, '409': 'The ban is not a proposal (applied or dismissed already)' },
      handler: (input, caller) => bans.apply(input.id, caller),
    }),
    defineOperation({
      id: 'bans.dismiss',
      summary: 'Dismiss a proposed ban',
      role: 'admin',
      method: 'POST',
      path: '/api/v1/bans/{id}/dismiss',
      input: ByIdInput,
      output: Ban,
      errors: { '409': 'The ban is not a proposal' },
      handler: (input, caller) => bans.dismiss(input.id, caller),
    }),
    defineOperation({
      id: 'bans.unban',
      summary: 'End an active ban on every host it was applied to',
      role: 'admin',
      method: 'POST',
      path: '/api/v1/bans/{id}/unban',
      input: ByIdInput,
      output: Ban,
      errors: { '409': 'The ban is not active' },
      handler: (input, caller) => bans.unban(input.id, caller),
    }),
  ];
}
