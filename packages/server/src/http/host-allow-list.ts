import type { IncomingMessage } from 'node:http';
import { ParleyError } from '@parley/core';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from './app-env';
import { isLoopbackAddress } from './connection-limits';

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
 * Refuses (403 `FORBIDDEN`) a request whose Host is not in `allowed` (names without port; `*` allows any;
 * `.example.com` allows the domain and its subdomains). It defeats DNS rebinding: a foreign page that points its
 * own name at this server still sends its own name as Host.
 */
export function hostAllowList(allowed: readonly string[]): MiddlewareHandler<AppEnv> {
  const isAllowed = createHostMatcher(allowed);
  return async (c, next) => {
    if (!isAllowed(hostnameOf(c.req.url))) {
      throw new ParleyError('FORBIDDEN', 'This Host is not allowed; see allowedHosts');
    }
    await next();
  };
}

/**
 * Whether a host name (lower case, no port, no brackets) is in `allowed` (see {@link hostAllowList}): the one
 * rule for REST and for the socket's handshake.
 */
export function createHostMatcher(allowed: readonly string[]): (host: string) => boolean {
  const names = new Set(allowed.map((name) => name.replace(/^\[|\]$/g, '').toLowerCase()));
  const suffixes = [...names].filter((name) => name.startsWith('.'));
  if (names.has('*')) return () => true;
  return (host) =>
    names.has(host) || suffixes.some((suffix) => host === suffix.slice(1) || host.endsWith(suffix));
}

/** The host name a node request names in its Host header (lower case, no port, no brackets), if any. */
export function hostHeaderName(request: IncomingMessage): string | undefined {
  const header = request.headers.host;
  if (!header) return undefined;
  try {
    return hostnameOf(`http://${header}`);
  } catch {
    return undefined;
  }
}

/**
 * The default when the bind address is not known: a request that arrived over a loopback connection (or in
 * process) must name a loopback Host; one that arrived on another address may name any. It protects what a
 * loopback-bound server protects (a browser on this machine whose page rebinds its name to 127.0.0.1), also for
 * a server bound to every address.
 */
export function loopbackConnectionHostCheck(): MiddlewareHandler<AppEnv> {
  const loopbackOnly = hostAllowList(LOOPBACK_HOSTS);
  return (c, next) => {
    const local = localAddressOf(c);
    return local === undefined || isLoopbackAddress(local) ? loopbackOnly(c, next) : next();
  };
}

function localAddressOf(c: Context<AppEnv>): string | undefined {
  return (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket?.localAddress;
}

/**
 * The same Host rule for requests that do not go through hono (the socket's handshake): with `allowedHosts`, or
 * a loopback `bindHost`, the Host must be listed; otherwise a connection that arrived over loopback must name a
 * loopback Host, and one from elsewhere may name any.
 */
export function createHostPolicy(options: {
  allowedHosts?: readonly string[];
  bindHost?: string;
}): (request: IncomingMessage) => boolean {
  const allowed =
    options.allowedHosts ??
    (options.bindHost === undefined ? undefined : defaultAllowedHosts(options.bindHost));
  const listed = allowed && createHostMatcher(allowed);
  const loopbackOnly = createHostMatcher(LOOPBACK_HOSTS);
  return (request) => {
    const host = hostHeaderName(request);
    if (listed) return host !== undefined && listed(host);
    const local = request.socket.localAddress;
    if (local !== undefined && !isLoopbackAddress(local)) return true;
    return host !== undefined && loopbackOnly(host);
  };
}
