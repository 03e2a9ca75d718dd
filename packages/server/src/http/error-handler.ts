import { isErrorCode } from '@parley/core';
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { logError, toParleyError } from '../errors/to-parley-error';
import type { AppEnv } from './app-env';
import { failure } from './envelope';

/**
 * The one place where errors become HTTP responses under the `/api` envelope. A 500 never carries a stack or
 * an internal message; the real cause goes to the log with the request id.
 */
export function handleError(error: unknown, c: Context<AppEnv>): Response {
  const parleyError = toParleyError(error);
  logError(c.get('logger'), parleyError, { path: c.req.path, method: c.req.method });
  const code = isErrorCode(parleyError.code) ? parleyError.code : 'INTERNAL';
  return c.json(
    failure(code, parleyError.message, parleyError.details),
    parleyError.status as ContentfulStatusCode,
  );
}
