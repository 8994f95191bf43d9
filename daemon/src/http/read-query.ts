import type { z } from 'zod';
import { toValidationIssues } from '../../../shared/src/index.js';
import { invalidParameter } from '../events/index.js';

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
