import { API_KEY_HEADER, ParleyError } from '@parley/core';
import { safeEqual } from '@parley/plugin-sdk';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../http/app-env';

/** Where a request may carry the server token. */
export interface ApiKeySources {
  /** Read a header (lower-case name). */
  header(name: string): string | string[] | undefined;
  /** The socket handshake's `auth.apiKey`, which wins over the header. */
  auth?: unknown;
}

/** The message of every 401: names the places to put the token, never the token. */
export const UNAUTHORIZED_MESSAGE = 'Missing or invalid x-api-key header';

/**
 * The token a request offers: the socket's `auth.apiKey`, else `x-api-key`, else (with `bearer`) an
 * `Authorization: Bearer` token (what Prometheus sends).
 */
export function offeredApiKey(
  sources: ApiKeySources,
  options: { bearer?: boolean } = {},
): string | undefined {
  if (typeof sources.auth === 'string') return sources.auth;
  const key = sources.header(API_KEY_HEADER);
  if (typeof key === 'string') return key;
  if (!options.bearer) return undefined;
  const authorization = sources.header('authorization');
  const match =
    typeof authorization === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(authorization) : null;
  return match?.[1];
}

/**
 * The one check of the server token: whether `offered` equals `token`, compared in constant time. No token
 * configured: everything is allowed.
 */
export function hasServerToken(offered: string | undefined, token: string | undefined): boolean {
  return !token || safeEqual(offered, token);
}

/** The 401 every guarded entry answers. */
export function unauthorized(): ParleyError {
  return new ParleyError('UNAUTHORIZED', UNAUTHORIZED_MESSAGE);
}

/**
 * Requires the server token (`x-api-key`, or with `bearer` also `Authorization: Bearer`), compared in constant
 * time; 401 `UNAUTHORIZED` otherwise.
 */
export function apiKeyAuth(
  token: string,
  options: { bearer?: boolean } = {},
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const offered = offeredApiKey({ header: (name) => c.req.header(name) }, options);
    if (!hasServerToken(offered, token)) throw unauthorized();
    await next();
  };
}
