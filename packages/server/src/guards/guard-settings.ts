import { z } from 'zod';
import {
  NO,
  optionalList,
  positiveNumber,
  unset,
  wholeNumber,
  YES,
  yesNo,
} from '../config/setting-types';
import { trustedProxyList, type TrustProxy } from './client-address';
import { CONNECTION_LIMIT_DEFAULTS, type ConnectionLimitOptions } from './connection-limits';
import { isLoopbackHost } from './host-allow-list';
import { RATE_LIMIT_DEFAULTS, type RateLimitOptions } from './rate-limit';

/**
 * `TRUST_PROXY`: `false` (default), `true` (the one proxy directly in front, whatever its address), or a
 * comma-separated list of proxy addresses and CIDR blocks (`loopback` for 127.0.0.0/8 and ::1).
 */
function trustProxySetting() {
  return z.preprocess(
    (value) => {
      const text = unset(value);
      if (typeof text !== 'string') return text;
      const word = text.toLowerCase();
      if (YES.has(word)) return true;
      if (NO.has(word)) return false;
      return text
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '');
    },
    z
      .union([z.boolean(), z.array(z.string())])
      .refine(
        (value) => {
          if (!Array.isArray(value)) return true;
          try {
            trustedProxyList(value);
            return true;
          } catch {
            return false;
          }
        },
        { error: 'must be false, true, or proxy addresses/CIDR blocks (e.g. 10.0.0.0/8,loopback)' },
      )
      .default(false),
  );
}

/**
 * The settings of the guards, every protection `createServer` takes: who the client is behind a proxy, the
 * Host names and browser origins served, the rate-limit budget, the connection caps and whether loopback peers
 * are limited. Defaults are the guards' own.
 */
export const guardSettingsSchema = z.object({
  TRUST_PROXY: trustProxySetting(),
  ALLOWED_HOSTS: optionalList(),
  ALLOWED_ORIGINS: optionalList(),
  RATE_LIMIT: yesNo(true),
  RATE_LIMIT_BURST: wholeNumber(RATE_LIMIT_DEFAULTS.burst, 1),
  RATE_LIMIT_PER_SECOND: positiveNumber(RATE_LIMIT_DEFAULTS.perSecond),
  MAX_CONNECTIONS: wholeNumber(CONNECTION_LIMIT_DEFAULTS.maxConnections, 1),
  MAX_CONNECTIONS_PER_ADDRESS: wholeNumber(CONNECTION_LIMIT_DEFAULTS.maxConnectionsPerAddress, 0),
  LIMIT_LOOPBACK: yesNo(CONNECTION_LIMIT_DEFAULTS.limitLoopback),
});

/** The parsed guard settings. */
export type GuardSettings = z.infer<typeof guardSettingsSchema>;

/** The `createServer` options the guard settings stand for. */
export interface GuardOptions {
  trustProxy: TrustProxy;
  allowedHosts?: string[];
  allowedOrigins?: string[];
  rateLimit: RateLimitOptions | false;
  connections: ConnectionLimitOptions;
}

/** Turns the guard settings into `createServer` options. */
export function toGuardOptions(settings: GuardSettings): GuardOptions {
  return {
    trustProxy: settings.TRUST_PROXY,
    ...(settings.ALLOWED_HOSTS ? { allowedHosts: settings.ALLOWED_HOSTS } : {}),
    ...(settings.ALLOWED_ORIGINS ? { allowedOrigins: settings.ALLOWED_ORIGINS } : {}),
    rateLimit: settings.RATE_LIMIT
      ? {
          burst: settings.RATE_LIMIT_BURST,
          perSecond: settings.RATE_LIMIT_PER_SECOND,
          limitLoopback: settings.LIMIT_LOOPBACK,
        }
      : false,
    connections: {
      maxConnections: settings.MAX_CONNECTIONS,
      maxConnectionsPerAddress: settings.MAX_CONNECTIONS_PER_ADDRESS,
      limitLoopback: settings.LIMIT_LOOPBACK,
    },
  };
}

/** One `parley doctor` line about the guards: what protects the server, and a warning when nothing does. */
export function describeGuards(
  settings: GuardSettings & { HOST: string; SERVER_AUTH_TOKEN?: string },
): { status: 'ok' | 'warn'; message: string; fix?: string } {
  const trust = settings.TRUST_PROXY;
  const proxies = trust === false ? 'none' : trust === true ? 'any peer' : trust.join(',');
  const rate = settings.RATE_LIMIT
    ? `${settings.RATE_LIMIT_BURST} at once then ${settings.RATE_LIMIT_PER_SECOND}/s per client`
    : 'off';
  const message =
    `guards: TRUST_PROXY ${proxies}; ALLOWED_HOSTS ${settings.ALLOWED_HOSTS?.join(',') ?? 'default'}; ` +
    `rate limit ${rate}; ${settings.MAX_CONNECTIONS} connections (${settings.MAX_CONNECTIONS_PER_ADDRESS} ` +
    `per address); loopback clients ${settings.LIMIT_LOOPBACK ? 'limited' : 'not limited'}`;
  if (!settings.SERVER_AUTH_TOKEN && !isLoopbackHost(settings.HOST)) {
    return {
      status: 'warn',
      message: `${message}; HOST ${settings.HOST} without SERVER_AUTH_TOKEN: anyone who can reach it can post and read`,
      fix: 'set SERVER_AUTH_TOKEN, or bind HOST=127.0.0.1 behind a proxy (docs/deploying.md)',
    };
  }
  return { status: 'ok', message };
}
