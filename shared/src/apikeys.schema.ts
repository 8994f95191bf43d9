import { z } from 'zod';

/** `POST /api/v1/api-keys` body: a label saying which agents use the key. */
export const ApiKeyCreateSchema = z.strictObject({
  label: z.string().trim().min(1, 'must not be empty').max(64, 'must be at most 64 characters'),
});

/** An agent API key as listed: never the secret. */
export interface ApiKeyView {
  id: string;
  /** `sac_` + 8 characters, to recognise the key. */
  prefix: string;
  label: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** Answer of key creation: `key` is the secret, shown this once. */
export interface ApiKeyCreated {
  key: string;
  api_key: ApiKeyView;
}
