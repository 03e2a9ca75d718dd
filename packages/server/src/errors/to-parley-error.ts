import { type ErrorCode, ParleyError } from '@parley/core';
import { HTTPException } from 'hono/http-exception';
import type { Logger } from 'pino';

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
  503: 'UNAVAILABLE',
  504: 'TIMEOUT',
};

/** Converts anything thrown into a client-safe ParleyError. Unknown errors become INTERNAL. */
export function toParleyError(error: unknown): ParleyError {
  if (ParleyError.isInstance(error)) return error;
  if (error instanceof HTTPException) {
    const code = CODE_BY_STATUS[error.status] ?? 'INTERNAL';
    const message = code === 'INTERNAL' ? 'Internal server error' : error.message || code;
    return new ParleyError(code, message, { cause: error });
  }
  return new ParleyError('INTERNAL', 'Internal server error', { cause: error });
}

/** Logs an error at the level its status deserves, with the real cause. */
export function logError(
  logger: Logger,
  error: ParleyError,
  context: Record<string, unknown> = {},
) {
  if (error.status >= 500) {
    logger.error({ ...context, err: error.cause ?? error, code: error.code }, error.message);
  } else {
    logger.debug({ ...context, code: error.code }, error.message);
  }
}
