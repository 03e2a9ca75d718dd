import { ParleyError } from '@parley/core';
import type { Logger } from 'pino';
import { describeCause } from './describe-cause';

/** Converts anything thrown into a client-safe ParleyError. Unknown errors become INTERNAL. */
export function toParleyError(error: unknown): ParleyError {
  if (ParleyError.isInstance(error)) return error;
  return new ParleyError('INTERNAL', 'Internal server error', { cause: error });
}

/**
 * Logs an error at the level its status deserves. A server-side failure (5xx) is logged with a summary of its
 * cause (type, status, codes), never with the data the cause carried: conversations never reach the log.
 */
export function logError(
  logger: Logger,
  error: ParleyError,
  context: Record<string, unknown> = {},
) {
  if (error.status >= 500) {
    const cause = describeCause(error.cause ?? error);
    logger.error({ ...context, code: error.code, cause }, error.message);
  } else {
    logger.debug({ ...context, code: error.code }, error.message);
  }
}
