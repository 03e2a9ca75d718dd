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
  const names = new Set(allowed.map((name) => name.replace(/^\[|\]$/g, '').toLowerCase()));
  const suffixes = [...names].filter((name) => name.startsWith('.'));
  const any = names.has('*');
  return async (c, next) => {
    if (!any) {
      const host = hostnameOf(c.req.url);
      const listed =
        names.has(host) ||
        suffixes.some((suffix) => host === suffix.slice(1) || host.endsWith(suffix));
      if (!listed) {
        throw new ParleyError('FORBIDDEN', 'This Host is not allowed; see allowedHosts');
      }
    }
    await next();
  };
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
