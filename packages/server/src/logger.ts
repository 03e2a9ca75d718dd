import { pino, type DestinationStream, type Logger, type LevelWithSilent } from 'pino';
import pretty from 'pino-pretty';
import { logMixin } from './tracing/log-context';

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

/** How log lines look: `pretty` (coloured, one readable line each) or `json` (one JSON object a line). */
export type LogFormat = 'pretty' | 'json';

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  /** Default: `pretty` when stdout is a terminal, `json` otherwise. Ignored when `destination` is given. */
  format?: LogFormat;
  /** Where JSON lines go instead of stdout (tests). */
  destination?: DestinationStream;
}

const noop = () => undefined;

/** Set once the process exits: from then on a full stdout pipe gets one more second, not forever. */
let exitingSince: number | undefined;
let exitWatched = false;
/** How long the last flush at exit may wait on a stdout pipe nobody reads. */
const EXIT_FLUSH_MS = 1000;

/**
 * Standard output written asynchronously (sonic-boom, `sync: false`), so that a slow reader never blocks the
 * event loop. When the reader goes away (`parley | head -2`), writes fail with EPIPE: from then on lines are
 * dropped rather than thrown, buffered without end, or retried, so HTTP keeps answering and SIGTERM still
 * stops the server. When the reader stays but never reads (`parley | sleep 1000`), the lines wait in memory;
 * at exit, pino flushes them synchronously, which against a full pipe would retry for good: it gets
 * {@link EXIT_FLUSH_MS}, then what is left is dropped and the process exits.
 */
function stdoutDestination() {
  if (!exitWatched) {
    exitWatched = true;
    // Registered before pino's own exit flush (which is registered when the destination is built). Once per
    // process: a server per test, or a logger per tool, must not add a listener each.
    process.once('exit', () => (exitingSince = Date.now()));
  }
  const stream = pino.destination({
    dest: 1,
    sync: false,
    retryEAGAIN: () => exitingSince === undefined || Date.now() - exitingSince < EXIT_FLUSH_MS,
  });
  const flushSync = stream.flushSync.bind(stream);
  stream.flushSync = () => {
    try {
      flushSync();
    } catch {
      // The reader did not take the last lines in time: they are dropped, the process still exits.
    }
  };
  const onError = (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') return;
    stream.write = () => true;
    stream.flush = (callback?: (error?: Error) => void) => callback?.();
    stream.flushSync = noop;
    stream.end = noop;
  };
  stream.on('error', onError);
  return stream;
}

/**
 * Creates the server's structured logger. Secrets under the known paths are redacted.
 *
 * @param level `LOG_LEVEL` (default `info`).
 * @param options a destination stream for JSON lines, or the format to use on stdout.
 * @example
 * const logger = createLogger('info', { format: 'pretty' });
 */
export function createLogger(
  level: LevelWithSilent = 'info',
  options?: DestinationStream | LoggerOptions,
): Logger {
  const { format, destination } =
    options && 'write' in options ? { format: undefined, destination: options } : (options ?? {});
  const settings = {
    level,
    base: { service: 'parley' },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    // A line written for a request or socket event names it (`requestId`, `socketId`), and one written while a
    // span is active its trace (`trace_id`, `span_id`; none with tracing off).
    mixin: logMixin,
  };
  if (destination) return pino(settings, destination);
  if ((format ?? (process.stdout.isTTY ? 'pretty' : 'json')) === 'json') {
    return pino(settings, stdoutDestination());
  }
  return pino(
    settings,
    pretty({
      colorize: process.stdout.isTTY,
      destination: stdoutDestination(),
      // One line per entry: a request is one line, its fields after the message, not one line each.
      singleLine: true,
      ignore: 'pid,hostname,service',
      translateTime: 'HH:MM:ss.l',
    }),
  );
}

export type { Logger };
