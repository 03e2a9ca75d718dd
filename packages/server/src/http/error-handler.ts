import { isErrorCode, type ParleyError } from '@parley/core';
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { logError, toParleyError } from '../errors/to-parley-error';
import { redactText, redactValue } from '../redaction/redact';
import type { AppEnv } from './app-env';
import { failure } from './envelope';

/** Error codes and messages of a request whose client went away (Node streams, undici, the node adapter). */
const CLIENT_GONE_CODES = new Set([
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ERR_STREAM_PREMATURE_CLOSE',
]);
const CLIENT_GONE_MESSAGE = /^(aborted|Client connection prematurely closed\.?)$/;

/**
 * Whether a failure only means the client went away: its request was aborted (the connection closed before the
 * answer), or the error is an abort or a reset of the client's own stream. Nobody is left to answer, and the
 * server did nothing wrong, so it is not logged as an error (a client that hangs up on purpose must not be able
 * to flood the log with stacks).
 */
export function isClientGone(error: unknown, c: Context<AppEnv>): boolean {
  if (c.req.raw.signal.aborted) return true;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && CLIENT_GONE_CODES.has(code)) return true;
  return error instanceof Error && CLIENT_GONE_MESSAGE.test(error.message);
}

/**
 * The one place where errors become HTTP responses under the `/api` envelope. A 500 never carries a stack or
 * an internal message; the real cause goes to the log with the request id. A request the client aborted is
 * logged at debug, whatever the failure it caused.
 */
export function handleError(error: unknown, c: Context<AppEnv>): Response {
  const parleyError = logRequestError(error, c);
  const code = isErrorCode(parleyError.code) ? parleyError.code : 'INTERNAL';
  const status = parleyError.status as ContentfulStatusCode;
  // What an error says leaves the server: redacted as every value that leaves it is.
  const response = c.json(
    failure(code, redactText(parleyError.message), redactValue(parleyError.details)),
    status,
  );
  // A database outage is temporary: tell well-behaved clients when to come back.
  if (parleyError.code === 'UNAVAILABLE') response.headers.set('Retry-After', '1');
  return response;
}

/**
 * A request's failure as a `ParleyError`, logged once: with its cause when the server failed, at debug when the
 * client went away. Every face's error answer (the envelope, OpenAI's shape) starts here.
 */
export function logRequestError(error: unknown, c: Context<AppEnv>): ParleyError {
  const parleyError = toParleyError(error);
  const context = { path: c.req.path, method: c.req.method };
  if (parleyError.status >= 500 && isClientGone(parleyError.cause ?? error, c)) {
    c.get('logger').debug({ ...context, code: parleyError.code }, 'request aborted by the client');
  } else {
    logError(c.get('logger'), parleyError, context);
  }
  return parleyError;
}
