import type { z } from 'zod';
import { ParleyClientError } from '../client-error';

/** The error for a response that does not match its schema: the server and client disagree, retrying won't help. */
export function invalidResponseError(
  status: number,
  what: string,
  issues?: z.core.$ZodIssue[],
): ParleyClientError {
  return new ParleyClientError(status, 'INVALID_RESPONSE', `Unexpected ${what} from the server`, {
    details: issues?.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
    retryable: false,
  });
}
