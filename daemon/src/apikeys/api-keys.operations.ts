import { z } from 'zod';
import { ApiKeyCreateSchema } from '../../../shared/src/index.js';
import { ByIdInput, defineOperation } from '../http/index.js';
import type { ApiKeysAdmin } from './api-keys.admin.js';

const ApiKey = z.looseObject({ id: z.string(), prefix: z.string(), label: z.string() });

/** Agent API keys (admin): list (never their secrets), create (the secret is in the answer once), revoke. */
export function apiKeysOperations(keys: ApiKeysAdmin) {
  return [
    defineOperation({
      id: 'apiKeys.list',
      summary: 'List agent API keys',
      role: 'admin',
      method: 'GET',
      path: '/api/v1/api-keys',
      envelope: 'api_keys',
      output: z.array(ApiKey),
      handler: () => keys.list(),
    }),
    defineOperation({
      id: 'apiKeys.create',
      summary: 'Create an agent API key',
      role: 'admin',
      method: 'POST',
      path: '/api/v1/api-keys',
      status: 201,
      input: ApiKeyCreateSchema,
      output: z.looseObject({ key: z.string(), api_key: ApiKey }),
      handler: (input, caller) => keys.create(input, caller),
    }),
    defineOperation({
      id: 'apiKeys.revoke',
      summary: 'Revoke an agent API key',
      role: 'admin',
      method: 'DELETE',
      path: '/api/v1/api-keys/{id}',
      status: 204,
      input: ByIdInput,
      output: z.object({ revoked: z.literal(true) }),
      handler: async (input, caller) => {
        await keys.revoke(input.id, caller);
        return { revoked: true as const };
      },
    }),
  ];
}
