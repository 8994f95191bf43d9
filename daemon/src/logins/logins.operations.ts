import { z } from 'zod';
import { UserLoginsQuerySchema } from '../../../shared/src/index.js';
import { defineOperation } from '../http/index.js';
import type { LoginsService } from './logins.service.js';

/** Login intelligence: a user's logins and baseline (any signed-in user), the baselines' rebuild (admin, audited). */
export function loginsOperations(logins: LoginsService) {
  return [
    defineOperation({
      id: 'logins.user',
      summary: "A user's logins across hosts (newest first, at most 500) and login baseline",
      role: 'operator',
      method: 'GET',
      path: '/api/v1/logins/user',
      scope: 'filtered',
      input: UserLoginsQuerySchema,
      output: z.looseObject({ user: z.string(), baseline: z.looseObject({}).nullable(), logins: z.array(z.looseObject({ event_id: z.string() })) }),
      handler: (input, caller) => logins.user(input.user, caller.scope),
    }),
    defineOperation({
      id: 'logins.rebuildBaselines',
      summary: 'Rebuild every user login baseline from the stored successful logins of the learning period',
      role: 'admin',
      method: 'POST',
      path: '/api/v1/logins/rebuild-baselines',
      output: z.looseObject({ logins: z.number(), users: z.number(), values: z.number(), took_ms: z.number() }),
      handler: (_input, caller) => logins.rebuildBaselines(caller),
    }),
  ];
}
