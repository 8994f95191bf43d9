/**
 * The one error type domain code throws. `kind` decides how it is reported:
 * `user` → 4xx, logged at info; `operational` → retryable (503), warn; `unexpected` → bug, error.
 * Which 4xx a user error is, is the transport's business: `http/error-map.ts` maps `code`.
 */
export type ErrorKind = 'user' | 'operational' | 'unexpected';

export class AppError extends Error {
  readonly code: string;
  readonly kind: ErrorKind;
  readonly details?: unknown;

  constructor(
    code: string,
    message: string,
    options: { kind?: ErrorKind; details?: unknown; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.kind = options.kind ?? 'user';
    this.details = options.details;
  }
}

/** A request parameter (query string, cursor) that is wrong, named in the message and `details.parameter`. */
export function invalidParameter(parameter: string, message: string, issues?: unknown[]): AppError {
  return new AppError('request/invalid_parameter', `${parameter}: ${message}`, {
    details: issues ? { parameter, issues } : { parameter },
  });
}

/** The store could not be reached or could not complete a write; callers answer 503 and retry later. */
export function storeUnavailable(cause: unknown): AppError {
  return new AppError('store/unavailable', 'The event store is unavailable; retry later', { kind: 'operational', cause });
}

/**
 * The event passed validation but cannot be stored (a serializer or the store refuses its content).
 * A user error: answered 422, so the agent sets it aside instead of re-sending it forever.
 */
export function unprocessableEvent(cause: unknown): AppError {
  return new AppError('event/unprocessable', 'The event is valid but cannot be stored', { kind: 'user', cause });
}

/**
 * True when `err` comes from the content of the events being written, not from the store's state:
 * a serializer recursing into a payload (structured clone, JSON) ran out of stack or refused it.
 * Only such failures are worth retrying event by event.
 */
export function isEventFault(err: unknown): boolean {
  if (err instanceof AppError) return err.code === 'event/unprocessable';
  return err instanceof RangeError || (err instanceof Error && err.name === 'DataCloneError');
}

/** A free-text search ran past its time budget: the caller narrows it (time range, longer text). */
export function searchTooBroad(): AppError {
  return new AppError('event/search_too_broad', 'The text search took too long; narrow it with a time range or a longer text');
}

/** Name, message and code of an error for a log line, without payloads or stacks of user data. */
export function errorSummary(err: unknown): { message: string; code?: unknown; name?: string } {
  if (err instanceof Error) return { name: err.name, message: err.message, code: (err as { code?: unknown }).code };
  return { message: String(err) };
}
