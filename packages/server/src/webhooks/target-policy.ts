import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** The first entry of a `WEBHOOK_PRIVATE_TARGETS` list that is not a host name, address or CIDR range. */
export function invalidTargetEntry(entries: readonly string[]): string | undefined {
  return entries.find((entry) => {
    const value = stripBrackets(entry.trim().toLowerCase());
    if (value.includes('/')) return !ipaddr.isValidCIDR(value);
    return (
      !ipaddr.isValid(value) &&
      !/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(value)
    );
  });
}

/** Why a webhook target was refused. */
export class TargetRefusedError extends Error {
  override readonly name = 'TargetRefusedError';
}

type Lookup = (
  hostname: string,
  options: { all: true },
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/**
 * Which addresses a webhook may be delivered to. Only public unicast addresses, unless the host name or the
 * address is listed in `privateTargets` (host names, addresses or CIDR ranges): loopback, private, link-local
 * (the cloud metadata address 169.254.169.254 among them), carrier-grade NAT, unique-local, multicast and
 * reserved ranges are refused. IPv4-mapped (`::ffff:a.b.c.d`) and IPv4-compatible (`::a.b.c.d`) IPv6 addresses
 * are judged as the IPv4 address they carry; the translated and tunnelled forms (NAT64 `64:ff9b::/96` and
 * `64:ff9b:1::/48`, SIIT, 6to4, Teredo) are refused unless their IPv6 address or range is listed.
 *
 * The check runs on the resolved addresses, in the connection's own DNS lookup ({@link TargetPolicy.lookup}),
 * so a name that resolves to a public address when the subscription is created and to a private one later
 * (DNS rebinding) is refused at delivery, and the address checked is the one connected to. Node never calls a
 * lookup for an address literal, so the delivery connection passes literals to the same lookup itself (see
 * `send-webhook.ts`).
 */
export class TargetPolicy {
  readonly #hosts = new Set<string>();
  readonly #ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [];
  readonly #resolve: Lookup;

  /**
   * @param privateTargets host names, addresses or CIDR ranges allowed although private (`WEBHOOK_PRIVATE_TARGETS`).
   * @throws TargetRefusedError naming an entry that is neither a host name nor an address nor a range.
   */
  constructor(privateTargets: readonly string[] = [], resolve: Lookup = dnsLookup) {
    this.#resolve = resolve;
    for (const entry of privateTargets) {
      const value = entry.trim().toLowerCase();
      if (value === '') continue;
      if (value.includes('/')) {
        try {
          this.#ranges.push(ipaddr.parseCIDR(value));
        } catch {
          throw new TargetRefusedError(`"${entry}" is not a CIDR range`);
        }
      } else if (ipaddr.isValid(stripBrackets(value))) {
        const address = ipaddr.process(stripBrackets(value));
        this.#ranges.push([address, address.kind() === 'ipv4' ? 32 : 128]);
      } else {
        this.#hosts.add(value);
      }
    }
  }

  /**
   * Checks a target URL: http(s), no credentials, and every address its host resolves to allowed.
   * @throws TargetRefusedError saying why.
   */
  async check(url: URL): Promise<void> {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new TargetRefusedError('must be an http(s) URL');
    }
    if (url.username || url.password) throw new TargetRefusedError('must not carry credentials');
    const host = stripBrackets(url.hostname.toLowerCase());
    const addresses = await new Promise<LookupAddress[]>((resolve, reject) => {
      this.lookup(host, { all: true }, (error, found) =>
        error ? reject(error) : resolve(found as LookupAddress[]),
      );
    });
    if (addresses.length === 0) throw new TargetRefusedError(`${host} does not resolve`);
  }

  /**
   * A `dns.lookup`-compatible function for the delivery connection: resolves, then refuses the whole answer if
   * one address is not allowed for this host.
   */
  readonly lookup = (
    hostname: string,
    options: { all?: boolean; family?: number | string } | number,
    callback: (
      error: NodeJS.ErrnoException | null,
      address: string | LookupAddress[],
      family?: number,
    ) => void,
  ): void => {
    const host = stripBrackets(hostname.toLowerCase());
    const all = typeof options === 'object' && options.all === true;
    const answer = (addresses: LookupAddress[]) => {
      const refused = addresses.find((entry) => !this.#allows(host, entry.address));
      if (refused) {
        const what =
          refused.address === host ? `${host} is` : `${host} resolves to ${refused.address},`;
        const error = new TargetRefusedError(
          `${what} a private or reserved address (list it in WEBHOOK_PRIVATE_TARGETS to allow it)`,
        ) as TargetRefusedError & { code: string };
        error.code = 'ETARGETREFUSED';
        callback(error, all ? [] : '', undefined);
        return;
      }
      if (all) callback(null, addresses);
      else callback(null, addresses[0]!.address, addresses[0]!.family);
    };
    const family = isIP(host);
    if (family !== 0) {
      answer([{ address: host, family }]);
      return;
    }
    this.#resolve(host, { all: true }, (error, addresses) => {
      if (error) callback(error, all ? [] : '', undefined);
      else answer(addresses);
    });
  };

  #allows(host: string, address: string): boolean {
    if (this.#hosts.has(host)) return true;
    const parsed = judged(address);
    if (!parsed) return false;
    if (this.#ranges.some((range) => sameKind(parsed, range[0]) && parsed.match(range)))
      return true;
    return parsed.range() === 'unicast';
  }
}

/** `::/96`: IPv4-compatible IPv6 addresses (deprecated by RFC 4291), `::` and `::1` among them. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/**
 * An address as the policy judges it: IPv4-mapped and IPv4-compatible IPv6 addresses as the IPv4 address they
 * carry (`::` and `::1` stay IPv6: unspecified and loopback); undefined when it is not an address.
 */
function judged(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(stripBrackets(address));
  } catch {
    return undefined;
  }
  if (parsed.kind() === 'ipv4' || !parsed.match(IPV4_COMPATIBLE)) return parsed;
  if (parsed.range() === 'unspecified' || parsed.range() === 'loopback') return parsed;
  return new ipaddr.IPv4(parsed.toByteArray().slice(12));
}

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

function sameKind(a: ipaddr.IPv4 | ipaddr.IPv6, b: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  return a.kind() === b.kind();
}
