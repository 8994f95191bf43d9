/**
 * Why a channel did not deliver. `permanent` failures (bad request, unknown recipient, gone
 * subscription) are not retried; `retryAfterMs` is the wait the peer asked for (Telegram 429).
 */
export class DeliveryError extends Error {
  readonly permanent: boolean;
  readonly retryAfterMs: number | null;
  readonly status: number | null;

  constructor(message: string, opts: { permanent?: boolean; retryAfterMs?: number | null; status?: number | null; cause?: unknown } = {}) {
    super(message, { cause: opts.cause });
    this.name = 'DeliveryError';
    this.permanent = opts.permanent ?? false;
    this.retryAfterMs = opts.retryAfterMs ?? null;
    this.status = opts.status ?? null;
  }
}

/** HTTP statuses worth retrying: timeouts, throttling and server errors. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || status >= 500;
}

/** Turns a thrown fetch/network error into a retryable DeliveryError with a short message. */
export function networkFailure(err: unknown, what: string): DeliveryError {
  if (err instanceof DeliveryError) return err;
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  const reason =
    e.name === 'TimeoutError' || e.name === 'AbortError' ? 'timed out' : (e.cause?.code ?? e.cause?.message ?? e.message ?? String(err));
  return new DeliveryError(`${what}: ${reason}`, { cause: err });
}

/** Reads at most `max` characters of a response body for an error message. */
export async function bodySnippet(res: Response, max = 200): Promise<string> {
  try {
    const text = await res.text();
    return text.length > max ? `${text.slice(0, max)}…` : text;
  } catch {
    return '';
  }
}
