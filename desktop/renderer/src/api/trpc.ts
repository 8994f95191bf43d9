import { createTRPCClient, httpBatchLink, isTRPCClientError } from '@trpc/client';
import type { AppRouter } from '../../../../daemon/src/server/app-router';
import { ApiError, apiUrl, reportUnauthorized, sessionHeaders } from './http';
import { tracked } from './progress';

/** The console's typed tRPC client; the router type comes from the daemon as a type only. */
export const trpc = createTRPCClient<AppRouter>({
  links: [
    httpBatchLink({
      url: apiUrl('trpc'),
      maxURLLength: 4000,
      // The daemon refuses larger batches (TRPC_MAX_BATCH in daemon/src/server/app.ts).
      maxItems: 16,
      // Queries go as GET, mutations as POST: a write made with the session cookie carries its CSRF token.
      headers: ({ opList }) => sessionHeaders(opList.some((op) => op.type !== 'query') ? 'POST' : 'GET'),
      fetch: (input, init) => tracked(() => fetch(input, init)),
    }),
  ],
});

/** Any failure of an API call as an ApiError (tRPC errors carry the daemon's `appCode`). */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (isTRPCClientError(err)) {
    const data = err.data as { httpStatus?: number; appCode?: string | null; details?: unknown } | undefined;
    const status = data?.httpStatus ?? 0;
    if (status === 401) reportUnauthorized();
    if (!data) return new ApiError('The SAC server cannot be reached', 0, 'network/unreachable');
    return new ApiError(err.message, status, data.appCode ?? null, data.details ?? null);
  }
  return new ApiError(err instanceof Error ? err.message : String(err), 0, null);
}

/** Runs an API call and rethrows its failure as ApiError. */
export async function call<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw toApiError(err);
  }
}
