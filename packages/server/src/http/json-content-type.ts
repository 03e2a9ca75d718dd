import { ParleyError } from '@parley/core';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './app-env';

/** Methods whose requests carry a body. */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/** Whether a Content-Type names JSON (`application/json`, `application/*+json`, any parameters). */
export function isJsonContentType(value: string | undefined): boolean {
  if (!value) return false;
  const type = value.split(';', 1)[0]!.trim().toLowerCase();
  return type === 'application/json' || /^application\/[\w.+-]+\+json$/.test(type);
}

/**
 * Refuses a POST, PUT or PATCH whose Content-Type is not JSON with 415 `UNSUPPORTED_MEDIA_TYPE`. JSON
 * endpoints read JSON whatever the header says; requiring it means a browser must ask first (a preflight,
 * which the origin guard answers) before it can send one cross-site.
 */
export function requireJsonContentType(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    // A declared empty body (`Content-Length: 0`, what fetch sends for a POST without one) has no media type.
    const empty = c.req.header('content-length') === '0' && !c.req.header('transfer-encoding');
    if (
      BODY_METHODS.has(c.req.method) &&
      !empty &&
      !isJsonContentType(c.req.header('content-type'))
    ) {
      throw new ParleyError('UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json');
    }
    await next();
  };
}
