import type { z } from 'zod';
import { toValidationIssues } from '../../../shared/src/index.js';
import { AppError } from '../errors.js';

/** Parses REST input with a shared schema; a mismatch is a 400 naming every problem. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value ?? {});
  if (!result.success) {
    throw new AppError('request/invalid', 'The request does not match the expected shape', {
      details: toValidationIssues(result.error),
    });
  }
  return result.data;
}
