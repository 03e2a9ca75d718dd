import type { IncomingMessage } from 'node:http';
import { ParleyError } from '@parley/core';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from '../http/app-env';
import { isLoopbackAddress } from './client-address';

/** The names a loopback-bound server answers to by default. */
export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '::1'];

/** Whether a bind address or host name stays on this machine (`localhost`, 127.0.0.0/8, `::1`). */
export function isLoopbackHost(host: string): boolean {
  const name = host.replace(/^\[|\]$/g, '').toLowerCase();
  return name === 'localhost' || name.endsWith('.localhost') || isLoopbackAddress(name);
}

/**
 * The Host names allowed by default: the loopback names when the server is bound to loopback (a page on
 * another site that rebinds its DNS name to 127.0.0.1 then reaches nothing), any when it is bound beyond
 * (`undefined`: the operator's proxy or firewall decides which names reach it).
 */
export function defaultAllowedHosts(bindHost: string): readonly string[] | undefined {
  return isLoopbackHost(bindHost) ? LOOPBACK_HOSTS : undefined;
}

/** The host name of a URL, lower case, without brackets or port. */
function hostnameOf(url: string): string {
  return new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase();
}

/**
 * Whether a host name (lower case, no port, no brackets) is in `allowed` (names without port; `*` allows any;
 * `.example.com` allows the domain and its subdomains).
 */
export function createHostMatcher(allowed: readonly string[]): (host: string) => boolean {
  const names = new Set(allowed.map((name) => name.replace(/^\[|\]$/g, '').toLowerCase()));
  const suffixes = [...names].filter((name) => name.startsWith('.'));
  if (names.has('*')) return () => true;
  return (host) =>
    names.has(host) || suffixes.some((suffix) => host === suffix.slice(1) || host.endsWith(suffix));
}

/** The host name a Host header names (lower case, no port, no brackets), if it is one. */
export function hostNameOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  try {
    return hostnameOf(`http://${header}`);
  } catch {
    return undefined;
  }
}

/** Options of {@link createHostPolicy}. */
export interface HostPolicyOptions {
  /** Host names requests may carry (see {@link createHostMatcher}). */
  allowedHosts?: readonly string[];
  /** The address the server binds, which decides the default. */
  bindHost?: string;
}

/**
 * The one Host rule, for REST and for the socket's handshake alike. With `allowedHosts`, or a loopback
 * `bindHost`, the Host must be listed. Otherwise (bound beyond loopback, nothing listed) a request that arrived
 * over a loopback connection (or in process: `localAddress` undefined) must name a loopback Host, and one that
 * arrived on another address may name any: a browser on this machine whose page rebinds its DNS name to
 * 127.0.0.1 reaches nothing, whatever address the server binds.
 */
export function createHostPolicy(
  options: HostPolicyOptions,
): (host: string | undefined, localAddress: string | undefined) => boolean {
  const allowed =
    options.allowedHosts ??
    (options.bindHost === undefined ? undefined : defaultAllowedHosts(options.bindHost));
  const listed = allowed && createHostMatcher(allowed);
  const loopbackOnly = createHostMatcher(LOOPBACK_HOSTS);
  return (host, localAddress) => {
    if (listed) return host !== undefined && listed(host);
    if (localAddress !== undefined && !isLoopbackAddress(localAddress)) return true;
    return host !== undefined && loopbackOnly(host);
  };
}

/** The message of the 403 a refused Host gets. */
export const HOST_NOT_ALLOWED = 'This Host is not allowed; see ALLOWED_HOSTS';

/**
 * Refuses (403 `FORBIDDEN`) a request whose Host the {@link createHostPolicy} rule refuses. It defeats DNS
 * rebinding: a foreign page that points its own name at this server still sends its own name as Host.
 */
export function hostAllowList(options: HostPolicyOptions): MiddlewareHandler<AppEnv> {
  const isAllowed = createHostPolicy(options);
  return async (c, next) => {
    if (!isAllowed(hostnameOf(c.req.url), localAddressOf(c))) {
      throw new ParleyError('FORBIDDEN', HOST_NOT_ALLOWED);
    }
    await next();
  };
}

function localAddressOf(c: Context<AppEnv>): string | undefined {
  return (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket?.localAddress;
}

/** The Host rule on a node request (the socket's handshake). */
export function createRequestHostPolicy(
  options: HostPolicyOptions,
): (request: IncomingMessage) => boolean {
  const isAllowed = createHostPolicy(options);
  return (request) => isAllowed(hostNameOf(request.headers.host), request.socket.localAddress);
}
