import { ParleyError } from '@parley/core';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../http/app-env';

/** Methods whose requests carry a body. */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** Whether a Content-Type names JSON (`application/json`, `application/*+json`, any parameters). */
export function isJsonContentType(value: string | undefined): boolean {
  if (!value) return false;
  const type = value.split(';', 1)[0]!.trim().toLowerCase();
  return type === 'application/json' || /^application\/[\w.+-]+\+json$/.test(type);
}

/**
 * Whether a request carries a body: a chunked one, a non-zero `Content-Length`, or (in process, where neither
 * header need be set) a body on the Request. Over HTTP/1.1 a request with neither header has none (`curl -X
 * POST`), and `Content-Length: 0` is what fetch sends for a POST without one: no body, no media type to check.
 */
function hasBody(c: Context<AppEnv>): boolean {
  if (c.req.header('transfer-encoding') !== undefined) return true;
  const length = c.req.header('content-length');
  if (length !== undefined) return length !== '0';
  return (
    (c.env as { incoming?: unknown } | undefined)?.incoming === undefined && c.req.raw.body !== null
  );
}

/**
 * Refuses a POST, PUT or PATCH whose Content-Type is not JSON with 415 `UNSUPPORTED_MEDIA_TYPE`. JSON
 * endpoints read JSON whatever the header says; requiring it means a browser must ask first (a preflight,
 * which the origin guard answers) before it can send one cross-site.
 */
export function requireJsonContentType(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (
      BODY_METHODS.has(c.req.method) &&
      hasBody(c) &&
      !isJsonContentType(c.req.header('content-type'))
    ) {
      throw new ParleyError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json');
    }
    await next();
  };
}
