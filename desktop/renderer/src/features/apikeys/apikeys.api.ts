import { call, trpc } from '../../api/trpc';
import type { RouterInputs, RouterOutputs } from '../../api/types';

export type ApiKeyRow = RouterOutputs['apiKeys']['list'][number];
export type ApiKeyCreate = RouterInputs['apiKeys']['create'];
export type MismatchEntry = RouterOutputs['audit']['list'][number];

export const apiKeysApi = {
  list: () => call(() => trpc.apiKeys.list.query()),
  create: (input: ApiKeyCreate) => call(() => trpc.apiKeys.create.mutate(input)),
  revoke: (id: string) => call(() => trpc.apiKeys.revoke.mutate({ id })),
  /** The latest events sent with a bound key from another host (the ingest guard audits them, refused or flagged). */
  mismatches: () => call(() => trpc.audit.list.query({ action: 'apikey.host_mismatch', limit: 500 })),
};
