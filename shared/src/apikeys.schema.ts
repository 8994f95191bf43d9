import { z } from 'zod';
import { trimmedText } from './trimmed-text.js';

/** `POST /api/v1/api-keys` body: a label saying which agents use the key. */
export const ApiKeyCreateSchema = z.strictObject({
  label: trimmedText(64),
  /** Binds the key to one host: events must name this `host.hostname` (case-insensitive). */
  hostname: trimmedText(255).optional(),
  /** Binds the key to one agent installation: events must carry this `source.agent_instance_id`. */
  agent_instance_id: trimmedText(128).optional(),
  /** What a bound key does with an event from another host: `refuse` (403, default) or `flag` (accept, audit). */
  on_mismatch: z.enum(['refuse', 'flag']).optional(),
});

/** What a key bound to a host does with an event naming another host or agent installation. */
export type ApiKeyMismatchAction = 'refuse' | 'flag';

/** An agent API key as listed: never the secret. */
export interface ApiKeyView {
  id: string;
  /** `sac_` + 8 characters, to recognise the key. */
  prefix: string;
  label: string;
  /** The host the key is bound to, or null (any host). */
  hostname: string | null;
  /** The agent installation the key is bound to, or null (any). */
  agent_instance_id: string | null;
  on_mismatch: ApiKeyMismatchAction;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** Answer of key creation: `key` is the secret, shown this once. */
export interface ApiKeyCreated {
  key: string;
  api_key: ApiKeyView;
}
