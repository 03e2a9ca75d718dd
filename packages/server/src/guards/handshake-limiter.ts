import type { IncomingMessage } from 'node:http';
import {
  addressGroup,
  clientAddressOf,
  createClientAddress,
  type TrustProxy,
} from './client-address';
import { KeyedTokenBucket } from './token-bucket';

/** Options of {@link createHandshakeLimiter}. */
export interface HandshakeLimit {
  /** New connections one address may open at once (default 60). */
  burst: number;
  /** New connections per second one address may sustain after the burst (default 20). */
  perSecond: number;
}

/** Addresses remembered at once; the least recent is forgotten first, so a flood of addresses costs bounded memory. */
const MAX_ADDRESSES = 10_000;

/**
 * engine.io's `allowRequest` hook (called for each new connection's handshake, not for the requests of a
 * connection that exists): a token bucket per client address (an IPv6 /64; behind a trusted proxy, the address
 * it forwards), so one client cannot open connections faster than the limit.
 */
export function createHandshakeLimiter(
  limit: HandshakeLimit,
  now: () => number = Date.now,
  trustProxy: TrustProxy = false,
): (
  request: IncomingMessage,
  callback: (error: string | null | undefined, allow: boolean) => void,
) => void {
  const buckets = new KeyedTokenBucket(limit.burst, limit.perSecond, MAX_ADDRESSES, now);
  const clientAddress = createClientAddress(trustProxy);
  return (request, callback) => {
    const address = clientAddressOf(request, clientAddress) ?? 'unknown';
    if (buckets.take(addressGroup(address)) === 0) callback(null, true);
    else callback('Too many new connections from this address; slow down', false);
  };
}
