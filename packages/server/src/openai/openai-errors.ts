import { type ErrorCode, ParleyError } from '@parley/core';
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { AppEnv } from '../http/app-env';
import { logRequestError } from '../http/error-handler';
import { redactText } from '../redaction/redact';

/** The path prefix of the OpenAI-compatible face. */
export const OPENAI_PATH = '/v1';

/** Whether a path belongs to the OpenAI-compatible face (`/v1/…`). */
export function isOpenAIPath(path: string): boolean {
  return path === OPENAI_PATH || path.startsWith(`${OPENAI_PATH}/`);
}

/** OpenAI's error body: what its clients parse into `APIError`. */
export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/** OpenAI's `type` and `code` for each of Parley's error codes (the status stays Parley's). */
const KINDS: Record<ErrorCode, { type: string; code: string | null }> = {
  BAD_REQUEST: { type: 'invalid_request_error', code: null },
  UNAUTHORIZED: { type: 'invalid_request_error', code: 'invalid_api_key' },
  FORBIDDEN: { type: 'invalid_request_error', code: 'forbidden' },
  NOT_FOUND: { type: 'invalid_request_error', code: 'not_found' },
  CONFLICT: { type: 'invalid_request_error', code: 'conflict' },
  CANCELLED: { type: 'invalid_request_error', code: 'cancelled' },
  CHANNEL_BUSY: { type: 'invalid_request_error', code: 'conversation_busy' },
  PAYLOAD_TOO_LARGE: { type: 'invalid_request_error', code: 'request_too_large' },
  UNSUPPORTED_MEDIA_TYPE: { type: 'invalid_request_error', code: 'unsupported_media_type' },
  RATE_LIMITED: { type: 'rate_limit_error', code: 'rate_limit_exceeded' },
  INTERNAL: { type: 'server_error', code: 'internal_error' },
  MODEL_ERROR: { type: 'server_error', code: 'model_error' },
  UNAVAILABLE: { type: 'server_error', code: 'unavailable' },
  TIMEOUT: { type: 'server_error', code: 'timeout' },
};

/**
 * A refusal of the OpenAI face with a `param` and an OpenAI `code` of its own (`model_not_found`): a
 * `ParleyError` whose details carry them, so the one error handler answers it.
 */
export function openAIError(
  code: ErrorCode,
  message: string,
  param: string | null,
  openaiCode?: string,
): ParleyError {
  return new ParleyError(code, message, {
    details: { param, ...(openaiCode ? { openaiCode } : {}) },
  });
}

/** A `ParleyError` in OpenAI's shape. Its message is already safe to show (an INTERNAL one says nothing). */
export function toOpenAIErrorBody(error: ParleyError): OpenAIErrorBody {
  const kind = KINDS[error.code] ?? KINDS.INTERNAL;
  const details = (error.details ?? {}) as {
    param?: unknown;
    openaiCode?: unknown;
    issues?: { path?: unknown }[];
  };
  // A schema refusal names its first problem's path (`messages.0.content`).
  const path = Array.isArray(details.issues) ? details.issues[0]?.path : undefined;
  const param =
    typeof details.param === 'string'
      ? details.param
      : typeof path === 'string' && path !== ''
        ? path
        : null;
  const code = typeof details.openaiCode === 'string' ? details.openaiCode : kind.code;
  // What an error says leaves the server: redacted as every value that leaves it is.
  return { error: { message: redactText(error.message), type: kind.type, param, code } };
}

/**
 * The error handler of `/v1`: every refusal there (the guards' too: Host, origin, rate, body size, API key,
 * content type) is answered in OpenAI's shape with Parley's status, logged as every other request's.
 */
export function handleOpenAIError(error: unknown, c: Context<AppEnv>): Response {
  const parleyError = logRequestError(error, c);
  const response = c.json(
    toOpenAIErrorBody(parleyError),
    parleyError.status as ContentfulStatusCode,
  );
  const retryAfter = (parleyError.details as { retryAfterSeconds?: unknown } | undefined)
    ?.retryAfterSeconds;
  if (typeof retryAfter === 'number') response.headers.set('Retry-After', String(retryAfter));
  else if (parleyError.code === 'UNAVAILABLE') response.headers.set('Retry-After', '1');
  return response;
}
