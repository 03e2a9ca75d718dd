import type { z } from 'zod';
import { ParleyError } from './parley-error';

/** One validation problem: where it is and what is wrong. */
export interface ValidationIssue {
  path: string;
  message: string;
}

/** Turns zod issues into a flat, client-safe list. */
export function toValidationIssues(error: z.ZodError): ValidationIssue[] {
  return error.issues.map((issue) => ({
    path: issue.path.map(String).join('.') || '(root)',
    message: issue.message,
  }));
}

/**
 * Parses `value` with `schema`, or throws a `BAD_REQUEST` ParleyError whose message names the first problem and
 * whose details list them all.
 *
 * @example
 * const body = parseOrThrow(agentMessageSchema, await request.json(), 'message');
 */
export function parseOrThrow<T extends z.ZodType>(
  schema: T,
  value: unknown,
  what = 'input',
): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = toValidationIssues(result.error);
  const first = issues[0];
  const message = first ? `Invalid ${what}: ${first.path} ${first.message}` : `Invalid ${what}`;
  throw new ParleyError('BAD_REQUEST', message, { details: { issues } });
}
