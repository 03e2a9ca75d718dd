import { DEFAULTS } from '../defaults';
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { ParleyError } from '@parley/core';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../http/app-env';
import { hasServerToken, offeredApiKey } from './api-key';
import {
  addressGroup,
  clientOriginOf,
  createClientOrigin,
  isLoopbackAddress,
  type TrustProxy,
} from './client-address';
import { KeyedTokenBucket } from './token-bucket';

/** Per-client request rate limits; `ServerOptions.rateLimit` takes them. */
export interface RateLimitOptions {
  /** Requests a client may send at once (default 60). */
  burst?: number;
  /** Requests a client may send per second after the burst (default 10). */
  perSecond?: number;
  /** Clients tracked at once; the least recent are forgotten beyond (default 10000). */
  maxClients?: number;
  /**
   * Which peers are proxies whose `X-Forwarded-For` names the client (see {@link TrustProxy}; default false:
   * the connection's address). `ServerOptions.trustProxy` sets it for every guard at once.
   */
  trustProxy?: TrustProxy;
  /**
   * Whether loopback clients are limited too (default false: they are this machine, a local proxy without
   * `trustProxy`, tests and benchmarks). Only a connection from loopback is one: a request a trusted proxy
   * forwarded is limited whatever address it names. In-process requests (`app.request`) are never limited.
   */
  limitLoopback?: boolean;
  /** The clock (tests move it by hand). */
  now?: () => number;
}

/** What the server passes besides the operator's options. */
interface RateLimitContext {
  /** The server's token: a request carrying it is counted by key and address rather than address alone. */
  authToken?: string;
}

/** The defaults of {@link RateLimitOptions}. */
export const RATE_LIMIT_DEFAULTS = DEFAULTS.rateLimit;

function incomingOf(c: Context<AppEnv>): IncomingMessage | undefined {
  return (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
}

/**
 * Who a request counts against: its address group (an IPv6 /64), and, when it carries the server's token,
 * the token too (hashed: no secret is kept). Every holder of the token is a client of its own, as every
 * address is; a made-up key counts against the address, or a client could send a new one with every request
 * and never run out.
 */
function clientKey(c: Context<AppEnv>, address: string, authToken: string | undefined): string {
  const group = addressGroup(address);
  // `Authorization: Bearer` too: `/mcp` and `/v1` clients send the token that way, and one holder of the token is
  // one client whichever header it uses.
  const offered = offeredApiKey({ header: (name) => c.req.header(name) }, { bearer: true });
  if (authToken && offered && hasServerToken(offered, authToken)) {
    const key = createHash('sha256').update(offered).digest('base64url').slice(0, 22);
    return `key:${key}:${group}`;
  }
  return `address:${group}`;
}

/**
 * Rate-limits requests per client (address, and token when it carries the server's) with a token bucket: over
 * the limit, 429 `RATE_LIMITED` with `Retry-After` in whole seconds. Each call makes its own buckets, so
 * messaging, the other built-in endpoints and plugin routes can have separate budgets.
 *
 * @example
 * app.use('/api/messaging/*', rateLimit({ burst: 30, perSecond: 5 }));
 */
export function rateLimit(
  options: RateLimitOptions = {},
  context: RateLimitContext = {},
): MiddlewareHandler<AppEnv> {
  const buckets = bucketsOf(options);
  const limitedOrigin = limitedOriginOf(options);
  return async (c, next) => {
    const origin = limitedOrigin(c);
    if (origin === undefined) return next();
    const key = clientKey(c, origin.address, context.authToken);
    refuseWhenSpent(c, buckets.take(key));
    c.set('rateBudget', {
      take: () => {
        const wait = buckets.take(key);
        return wait > 0 ? waitSeconds(wait) : 0;
      },
    });
    await next();
  };
}

/**
 * Rate-limits each signed-in person (a user or guest identity, never the operator) with a budget of their own,
 * after the address budget of {@link rateLimit}: a person who spreads requests over many addresses (IPv6 /64s,
 * proxies that forward any address) still has one budget, and people behind one address are told apart by it.
 * Requests this machine makes itself are exempt as they are from the address budget. Must run after the
 * identity middleware (it reads `identity`).
 */
export function personRateLimit(options: RateLimitOptions = {}): MiddlewareHandler<AppEnv> {
  const buckets = bucketsOf(options);
  const limitedOrigin = limitedOriginOf(options);
  return async (c, next) => {
    const identity = c.get('identity');
    if (identity === undefined || identity.kind === 'admin') return next();
    if (limitedOrigin(c) === undefined) return next();
    const key = `person:${identity.entityId}`;
    refuseWhenSpent(c, buckets.take(key));
    // A request that makes several calls (an `/mcp` batch) takes a token of the person's budget for each, as of
    // the address's: a person rotating addresses gets no fresh calls from a fresh address.
    const byAddress = c.get('rateBudget');
    const own = () => {
      const wait = buckets.take(key);
      return wait > 0 ? waitSeconds(wait) : 0;
    };
    c.set('rateBudget', { take: byAddress ? () => Math.max(byAddress.take(), own()) : own });
    await next();
  };
}

/** The token buckets of one budget, per key, sized by `options`. */
function bucketsOf(options: RateLimitOptions): KeyedTokenBucket {
  return new KeyedTokenBucket(
    options.burst ?? RATE_LIMIT_DEFAULTS.burst,
    options.perSecond ?? RATE_LIMIT_DEFAULTS.perSecond,
    options.maxClients ?? RATE_LIMIT_DEFAULTS.maxClients,
    options.now,
  );
}

/** The origin of a request that a budget counts; undefined for one it does not (in-process, or this machine). */
function limitedOriginOf(options: RateLimitOptions) {
  const clientOrigin = createClientOrigin(options.trustProxy);
  return (c: Context<AppEnv>) => {
    const origin = clientOriginOf(incomingOf(c), clientOrigin);
    // This machine, connected itself; a proxy saying "127.0.0.1" is not (nor a proxy saying nothing usable).
    if (origin && !options.limitLoopback && !origin.proxied && isLoopbackAddress(origin.address)) {
      return undefined;
    }
    return origin;
  };
}

/** Throws 429 `RATE_LIMITED` with `Retry-After` when a budget says to wait `waitMs`. */
function refuseWhenSpent(c: Context<AppEnv>, waitMs: number): void {
  if (waitMs <= 0) return;
  const seconds = waitSeconds(waitMs);
  c.header('Retry-After', String(seconds));
  throw new ParleyError('RATE_LIMITED', `Too many requests; retry after ${seconds} s`, {
    details: { retryAfterSeconds: seconds },
  });
}

/** A wait in whole seconds for `Retry-After`, at least 1. */
function waitSeconds(waitMs: number): number {
  return Math.max(1, Math.ceil(waitMs / 1000));
}
