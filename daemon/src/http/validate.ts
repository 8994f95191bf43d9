import type { z } from 'zod';
import { toValidationIssues } from '../../../shared/src/index.js';
import { AppError, invalidParameter } from '../errors.js';

/** A request body (or tRPC input) the schema refused: a 400 naming every problem. */
export function invalidRequest(error: z.ZodError): AppError {
  return new AppError('request/invalid', 'The request does not match the expected shape', { details: toValidationIssues(error) });
}

/** Parses REST input with a shared schema; a mismatch is a 400 naming every problem. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value ?? {});
  if (!result.success) throw invalidRequest(result.error);
  return result.data;
}

/**
 * Parses a REST query string with a shared schema. A mismatch is a 400 whose message names the
 * first bad parameter (`details.parameter`), with every problem in `details.issues`.
 */
export function parseQuery<S extends z.ZodType>(schema: S, query: unknown): z.output<S> {
  const result = schema.safeParse(query ?? {});
  if (result.success) return result.data;
  const issues = toValidationIssues(result.error);
  const first = issues[0];
  throw invalidParameter(first.path.split('.')[0] || 'query', first.message, issues);
}
