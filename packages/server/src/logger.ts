import { pino, type Logger, type LevelWithSilent } from 'pino';

/** Paths whose values never reach a log line. */
const REDACTED_PATHS = [
  'headers["x-api-key"]',
  'headers.authorization',
  'headers.cookie',
  '*.headers["x-api-key"]',
  '*.headers.authorization',
  'apiKey',
  '*.apiKey',
  'salt',
  '*.salt',
  'WALLET_SECRET_SALT',
  '*.WALLET_SECRET_SALT',
  'SERVER_AUTH_TOKEN',
  '*.SERVER_AUTH_TOKEN',
];

/** Log levels an operator can set with `LOG_LEVEL`. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * Creates the server's structured logger (JSON lines on stdout, or on `destination`). Secrets under the known
 * paths are redacted.
 */
export function createLogger(
  level: LevelWithSilent = 'info',
  destination?: pino.DestinationStream,
): Logger {
  return pino(
    {
      level,
      base: { service: 'parley' },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    },
    destination ?? pino.destination({ sync: false }),
  );
}

export type { Logger };
