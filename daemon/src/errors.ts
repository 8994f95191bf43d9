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
/** A host id that names no host (or, for a caller limited to host groups, none of theirs). */
export function hostNotFound(id: string): AppError {
  return new AppError('host/not_found', 'No such host', { details: { id } });
}

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
 * What a store failure means for an operator, read from the driver's error code (anywhere in the
 * `cause` chain): the disk is full or read-only or fails, the database is locked, the server does
 * not answer. Null when `err` is not such a failure (a bug, a constraint, an event's content).
 * Fixed phrases, never the driver's message: `/health` shows them to anyone.
 */
export function storageFault(err: unknown): string | null {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') {
      if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT') return "the store's disk is full";
      if (code.startsWith('SQLITE_READONLY') || code === 'EROFS') return "the store's disk is read-only";
      if (code.startsWith('SQLITE_IOERR') || code.startsWith('SQLITE_CANTOPEN') || code === 'EIO') return "the store's disk fails to read or write";
      if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return 'the store is locked by another writer';
      if (code === 'ETIMEDOUT') return 'the store does not answer';
    }
    if (/^Mongo(Network|NetworkTimeout|ServerSelection|TopologyClosed|NotConnected)Error$/.test(e.name)) return 'the store does not answer';
  }
  return null;
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
