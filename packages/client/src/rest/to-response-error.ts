import { apiErrorBodySchema } from '@parley/core';
import { ParleyClientError } from '../client-error';

/**
 * The error for a non-2xx response. The server's `{ success: false, error: { code, message, details } }` is
 * used as is; any other body (a proxy's HTML page, say) gives `HTTP_ERROR` with the status.
 */
export function toResponseError(status: number, body: unknown): ParleyClientError {
  const parsed = apiErrorBodySchema.safeParse(body);
  if (!parsed.success) return new ParleyClientError(status, 'HTTP_ERROR', `HTTP ${status}`);
  const { code, message, details } = parsed.data.error;
  return new ParleyClientError(status, code, message, { details });
}
