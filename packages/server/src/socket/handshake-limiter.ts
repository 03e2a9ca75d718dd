import type { IncomingMessage } from 'node:http';
import { TokenBucket } from './token-bucket';

/** Options of {@link createHandshakeLimiter}. */
export interface HandshakeLimit {
  /** New connections one address may open at once (default 60). */
  burst: number;
  /** New connections per second one address may sustain after the burst (default 20). */
  perSecond: number;
}

/** Addresses remembered at once; the oldest is forgotten first, so a flood of addresses costs bounded memory. */
const MAX_ADDRESSES = 10_000;

/**
 * engine.io's `allowRequest` hook (called for each new connection's handshake, not for the requests of a
 * connection that exists): a token bucket per client address, so one address cannot open connections faster
 * than the limit. Behind a proxy every client shares the proxy's address: raise the limit there, or let the proxy
 * limit connections.
 */
export function createHandshakeLimiter(
  limit: HandshakeLimit,
  now: () => number = Date.now,
): (
  request: IncomingMessage,
  callback: (error: string | null | undefined, allow: boolean) => void,
) => void {
  const buckets = new Map<string, TokenBucket>();
  return (request, callback) => {
    const address = request.socket.remoteAddress ?? 'unknown';
    let bucket = buckets.get(address);
    if (bucket) {
      // Most recently used last, so the first key is the one to forget.
      buckets.delete(address);
    } else {
      bucket = new TokenBucket(limit.burst, limit.perSecond, now);
      if (buckets.size >= MAX_ADDRESSES) buckets.delete(buckets.keys().next().value!);
    }
    buckets.set(address, bucket);
    if (bucket.take()) callback(null, true);
    else callback('Too many new connections from this address; slow down', false);
  };
}
