import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { API_KEY_HEADER, ParleyError } from '@parley/core';
import { safeEqual } from '@parley/plugin-sdk';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../http/app-env';
import { isLoopbackAddress } from '../http/connection-limits';
import { KeyedTokenBucket } from './keyed-token-bucket';

/** Per-client request rate limits; `ServerOptions.rateLimit` takes them. */
export interface RateLimitOptions {
  /** Requests a client may send at once (default 60). */
  burst?: number;
  /** Requests a client may send per second after the burst (default 10). */
  perSecond?: number;
  /** Clients tracked at once; the least recent are forgotten beyond (default 10000). */
  maxClients?: number;
  /**
   * Take the client address from the last `X-Forwarded-For` entry (the one the proxy in front added) instead
   * of the connection (default false: only behind a reverse proxy you run, or clients can pick their address).
   */
  trustProxy?: boolean;
  /**
   * Whether loopback peers are limited too (default false: they are this machine, a local proxy without
   * `trustProxy`, tests and benchmarks). In-process requests (`app.request`) are never limited.
   */
  limitLoopback?: boolean;
  /** The clock (tests move it by hand). */
  now?: () => number;
}

/** What the server passes besides the operator's options. */
interface RateLimitContext {
  /** The server's token: a request carrying it is counted by key rather than by address. */
  authToken?: string;
}

/** The defaults of {@link RateLimitOptions}. */
export const RATE_LIMIT_DEFAULTS = { burst: 60, perSecond: 10, maxClients: 10_000 } as const;

/** The address of the peer, from the node adapter's incoming message; undefined for in-process requests. */
function peerAddress(c: Context<AppEnv>): string | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress;
}

/**
 * Who a request counts against: its API key when that is the server's token (hashed: no secret is kept), else
 * its address. Only a valid key gets a bucket of its own; otherwise a client could send a new made-up key with
 * every request and never run out.
 */
function clientKey(c: Context<AppEnv>, address: string, authToken: string | undefined): string {
  const apiKey = c.req.header(API_KEY_HEADER);
  if (apiKey && authToken && safeEqual(apiKey, authToken)) {
    return `key:${createHash('sha256').update(apiKey).digest('base64url').slice(0, 22)}`;
  }
  return `address:${address}`;
}

/**
 * Rate-limits requests per client (API key, else address) with a token bucket: over the limit, 429
 * `RATE_LIMITED` with `Retry-After` in whole seconds. Each call makes its own buckets, so messaging and plugin
 * routes can have separate budgets.
 *
 * @example
 * app.use('/api/messaging/*', rateLimit({ burst: 30, perSecond: 5 }));
 */
export function rateLimit(
  options: RateLimitOptions = {},
  context: RateLimitContext = {},
): MiddlewareHandler<AppEnv> {
  const buckets = new KeyedTokenBucket(
    options.burst ?? RATE_LIMIT_DEFAULTS.burst,
    options.perSecond ?? RATE_LIMIT_DEFAULTS.perSecond,
    options.maxClients ?? RATE_LIMIT_DEFAULTS.maxClients,
    options.now,
  );
  return async (c, next) => {
    let address = peerAddress(c);
    if (address === undefined) return next();
    if (options.trustProxy) {
      const forwarded = c.req.header('x-forwarded-for')?.split(',').at(-1)?.trim();
      if (forwarded) address = forwarded;
    }
    if (!options.limitLoopback && isLoopbackAddress(address)) return next();
    const waitMs = buckets.take(clientKey(c, address, context.authToken));
    if (waitMs > 0) {
      const seconds = Math.max(1, Math.ceil(waitMs / 1000));
      c.header('Retry-After', String(seconds));
      throw new ParleyError('RATE_LIMITED', `Too many requests; retry after ${seconds} s`, {
        details: { retryAfterSeconds: seconds },
      });
    }
    await next();
  };
}
