import { ERROR_CODES, apiErrorBodySchema } from '@parley/core';
import { ParleyClientError } from '../client-error';

const CODE_BY_STATUS = new Map<number, string>(
  Object.entries(ERROR_CODES).map(([code, status]) => [status, code]),
);

/**
 * The error for a non-2xx response. The server's `{ success: false, error: { code, message, details } }` is
 * used as is; any other body (a proxy's HTML page, say) gets the code Parley uses for that status, else
 * `HTTP_ERROR`.
 */
export function toResponseError(status: number, body: unknown): ParleyClientError {
  const parsed = apiErrorBodySchema.safeParse(body);
  if (parsed.success) {
    const { code, message, details } = parsed.data.error;
    return new ParleyClientError(status, code, message, { details });
  }
  return new ParleyClientError(
    status,
    CODE_BY_STATUS.get(status) ?? 'HTTP_ERROR',
    `HTTP ${status}`,
  );
}
