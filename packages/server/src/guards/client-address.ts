import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which peers are proxies whose `X-Forwarded-For` is believed: `false` none (the connection's address is the
 * client's); a list of proxy addresses and CIDR blocks (`127.0.0.1`, `10.0.0.0/8`, `fd00::/8`, or `loopback`
 * for 127.0.0.0/8 and ::1); `true` the one proxy directly in front, whatever its address (only when nothing
 * but that proxy can reach the server).
 */
export type TrustProxy = boolean | readonly string[];

/**
 * An address in its one written form (RFC 5952 for IPv6; `::ffff:1.2.3.4` is `1.2.3.4`); undefined when not an
 * address. Only the forms `net.isIP` takes count: ipaddr.js alone would also read `127.1` or hex octets.
 */
export function plainAddress(address: string | undefined): string | undefined {
  if (!address) return undefined;
  const bare = address.trim().replace(/^\[|\]$/g, '');
  return isIP(bare) === 0 ? undefined : ipaddr.process(bare).toString();
}

/** Whether an address is a loopback one (127.0.0.0/8, ::1, or IPv4-mapped loopback). */
export function isLoopbackAddress(address: string | undefined): boolean {
  const plain = plainAddress(address);
  if (!plain) return false;
  if (isIP(plain) === 4) return plain.startsWith('127.');
  return plain === '::1';
}

/**
 * The key one client's limits count against: an IPv4 address as is, an IPv6 address by its /64 (what one
 * household or one server is given, so one holder cannot spread over 2^64 addresses). Not an address: as given.
 */
export function addressGroup(address: string): string {
  const plain = plainAddress(address);
  if (!plain) return address;
  const parsed = ipaddr.parse(plain);
  if (parsed.kind() === 'ipv4') return plain;
  return `${(parsed as ipaddr.IPv6).parts
    .slice(0, 4)
    .map((part) => part.toString(16))
    .join(':')}::/64`;
}

/** Whether `address` (plain) is in `blocks`. */
function inBlocks(blocks: BlockList, address: string): boolean {
  return blocks.check(address, isIP(address) === 4 ? 'ipv4' : 'ipv6');
}

/** A BlockList of the trusted proxies; throws RangeError on an entry that is neither an address nor a CIDR. */
export function trustedProxyList(entries: readonly string[]): BlockList {
  const blocks = new BlockList();
  for (const raw of entries) {
    const entry = raw.trim().toLowerCase();
    if (entry === 'loopback') {
      blocks.addSubnet('127.0.0.0', 8, 'ipv4');
      blocks.addAddress('::1', 'ipv6');
      continue;
    }
    const [address, bits, extra] = entry.split('/');
    const plain = plainAddress(address);
    const family = plain && isIP(plain) === 4 ? 'ipv4' : 'ipv6';
    const max = family === 'ipv4' ? 32 : 128;
    const prefix = bits === undefined ? max : Number(bits);
    if (!plain || extra !== undefined || !Number.isInteger(prefix) || prefix < 0 || prefix > max) {
      throw new RangeError(`"${raw}" is not a proxy address or CIDR block (e.g. 10.0.0.0/8)`);
    }
    blocks.addSubnet(plain, prefix, family);
  }
  return blocks;
}

/**
 * An `X-Forwarded-For` entry as a client address: a plain address, without a zone (`%eth0`, meaningless beyond
 * the proxy's host) and not one no client sends from (unspecified, multicast, broadcast); else undefined.
 */
export function forwardedAddress(entry: string | undefined): string | undefined {
  if (entry?.includes('%')) return undefined;
  const plain = plainAddress(entry);
  if (!plain) return undefined;
  const range = ipaddr.parse(plain).range();
  return range === 'unspecified' || range === 'multicast' || range === 'broadcast'
    ? undefined
    : plain;
}

/** Who sent a request, as the guards read it. */
export interface ClientOrigin {
  /** The client's address (see {@link createClientOrigin}). */
  address: string;
  /**
   * Whether a trusted proxy forwarded the request (its peer is one and it sent `X-Forwarded-For`): then the
   * address is what the proxy said, or the proxy's own when what it said is not an address. Never the
   * connection's own loopback, whatever the address reads.
   */
  proxied: boolean;
}

/**
 * The one reading of a client, for rate limits and the socket handshake: the connection's peer, or, when that
 * peer is a trusted proxy, the address it put in `X-Forwarded-For`. The header is read from the right (the
 * entry the nearest proxy appended) and each entry is believed only while the hop that wrote it is a trusted
 * proxy; an entry that is not a client address ({@link forwardedAddress}) stops the walk at the hop that sent
 * it, and the request counts as that hop's. So a client that writes its own `X-Forwarded-For` gains nothing: a
 * trusted proxy appends the real address after it, and a client that connects directly is no trusted proxy.
 * Undefined when there is no peer (in-process requests).
 */
export function createClientOrigin(
  trustProxy: TrustProxy = false,
): (
  peer: string | undefined,
  forwardedFor: string | string[] | undefined,
) => ClientOrigin | undefined {
  const blocks = Array.isArray(trustProxy) ? trustedProxyList(trustProxy) : undefined;
  const trusted = (address: string, hop: number) =>
    blocks ? inBlocks(blocks, address) : trustProxy === true && hop === 0;
  return (peer, forwardedFor) => {
    const own = plainAddress(peer) ?? peer;
    if (own === undefined) return undefined;
    if (trustProxy === false || forwardedFor === undefined || !trusted(own, 0)) {
      return { address: own, proxied: false };
    }
    const header = Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor;
    const chain = header.split(',').reverse();
    let client = own;
    for (let hop = 0; hop < chain.length && trusted(client, hop); hop += 1) {
      const entry = forwardedAddress(chain[hop]);
      if (entry === undefined) break;
      client = entry;
    }
    return { address: client, proxied: true };
  };
}

/** {@link createClientOrigin}'s address alone. */
export function createClientAddress(
  trustProxy: TrustProxy = false,
): (peer: string | undefined, forwardedFor: string | string[] | undefined) => string | undefined {
  const origin = createClientOrigin(trustProxy);
  return (peer, forwardedFor) => origin(peer, forwardedFor)?.address;
}

/** The client of a node request (its peer address and `X-Forwarded-For`), read by `clientOrigin`. */
export function clientOriginOf(
  request: Pick<IncomingMessage, 'socket' | 'headers'> | undefined,
  clientOrigin: ReturnType<typeof createClientOrigin>,
): ClientOrigin | undefined {
  if (!request?.socket) return undefined;
  return clientOrigin(request.socket.remoteAddress, request.headers?.['x-forwarded-for']);
}

/** The peer address and `X-Forwarded-For` of a node request. */
export function clientAddressOf(
  request: Pick<IncomingMessage, 'socket' | 'headers'> | undefined,
  clientAddress: ReturnType<typeof createClientAddress>,
): string | undefined {
  if (!request?.socket) return undefined;
  return clientAddress(request.socket.remoteAddress, request.headers?.['x-forwarded-for']);
}
