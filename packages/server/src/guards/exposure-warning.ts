import type { Logger } from 'pino';
import { isLoopbackHost } from './host-allow-list';

/** The warning text, exported so that documentation and tests quote the same words. */
export const EXPOSED_WITHOUT_TOKEN_WARNING =
  'LISTENING BEYOND LOOPBACK WITHOUT SERVER_AUTH_TOKEN: anyone who can reach this address can post messages, ' +
  'spend model calls and read every channel. Set SERVER_AUTH_TOKEN, or bind HOST=127.0.0.1 behind a proxy.';

/**
 * Logs a loud warning (level warn, plus `exposed: true` for alerting) when the server listens on an address
 * beyond loopback without an auth token; returns whether it did. Call it once, after the server is listening.
 *
 * @example
 * warnIfExposedWithoutToken(logger, { host: '0.0.0.0', authToken: undefined });
 */
export function warnIfExposedWithoutToken(
  logger: Logger,
  options: { host: string; authToken?: string },
): boolean {
  if (options.authToken || isLoopbackHost(options.host)) return false;
  logger.warn({ host: options.host, exposed: true }, EXPOSED_WITHOUT_TOKEN_WARNING);
  return true;
}
