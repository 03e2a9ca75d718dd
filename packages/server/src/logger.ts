import {
  pino,
  type DestinationStream,
  type Logger,
  type LevelWithSilent,
  type LoggerOptions as PinoOptions,
} from 'pino';
import { createRequire } from 'node:module';
import type PinoPretty from 'pino-pretty';
import { redactText, redactValue } from './redaction/redact';
import { logMixin } from './tracing/log-context';

/**
 * Control characters a pretty line must not carry as they are: C0 (CR and LF forge a new line), DEL, C1, the
 * Unicode line and paragraph separators, and ESC (ANSI sequences that recolour or rewrite the terminal).
 */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

function escapeControl(char: string): string {
  if (char === '\n') return '\\n';
  if (char === '\r') return '\\r';
  if (char === '\t') return '\\t';
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** Text with every control character written as an escape (`\n`, `\u001b`): one entry stays one line. */
export function escapeControlCharacters(text: string): string {
  return text.replace(CONTROL, escapeControl);
}

function escapeDeep(value: unknown): unknown {
  if (typeof value === 'string') return escapeControlCharacters(value);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(escapeDeep);
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [escapeControlCharacters(key), escapeDeep(item)]),
  );
}

/**
 * What every log line goes through: its fields and message redacted as everything that leaves the server is
 * (`redaction/redact.ts`: secret names, URL passwords, `Bearer …`, the server's and agents' secret values), and
 * in pretty mode every control character escaped, so that a request path, header or error holding `%0a`, `%0d`
 * or `%1b[31m` cannot forge a line or repaint the terminal. JSON lines escape control characters themselves.
 */
function cleaning(escape: boolean): Pick<PinoOptions, 'formatters' | 'hooks'> {
  const clean = (value: unknown) => (escape ? escapeDeep(redactValue(value)) : redactValue(value));
  return {
    formatters: {
      log: (object) => clean(object) as Record<string, unknown>,
      bindings: (bindings) => clean(bindings) as Record<string, unknown>,
    },
    hooks: {
      logMethod(args, method) {
        // `logger.error(err)` and `logger.warn({ err })` take their message from the error: cleaned here too.
        const first: unknown = args[0];
        const error = first instanceof Error ? first : (first as { err?: unknown } | null)?.err;
        if (typeof args[1] !== 'string' && error instanceof Error && args.length === 1) {
          args = [first, error.message] as typeof args;
        }
        const cleaned = args.map((arg) => {
          if (typeof arg !== 'string') return arg;
          const text = redactText(arg);
          return escape ? escapeControlCharacters(text) : text;
        });
        return method.apply(this, cleaned as Parameters<typeof method>);
      },
    },
  };
}

/** Log levels an operator can set with `LOG_LEVEL`. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** How log lines look: `pretty` (coloured, one readable line each) or `json` (one JSON object a line). */
export type LogFormat = 'pretty' | 'json';

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  /** Default: `pretty` when stdout is a terminal, `json` otherwise (`json` when only `destination` is given). */
  format?: LogFormat;
  /** Where lines go instead of stdout (tests). */
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
 * Creates the server's structured logger. Every line is redacted (see {@link cleaning}); pretty lines have their
 * control characters escaped.
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
  const chosen = format ?? (destination || !process.stdout.isTTY ? 'json' : 'pretty');
  const settings: PinoOptions = {
    level,
    base: { service: 'parley' },
    // A line written for a request or socket event names it (`requestId`, `socketId`), and one written while a
    // span is active its trace (`trace_id`, `span_id`; none with tracing off).
    mixin: logMixin,
    ...cleaning(chosen === 'pretty'),
  };
  if (chosen === 'json') return pino(settings, destination ?? stdoutDestination());
  // Required only for pretty lines (a terminal): a server logging JSON never loads it (see docs/decisions.md).
  const pretty = createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty;
  return pino(
    settings,
    pretty({
      colorize: !destination && process.stdout.isTTY,
      destination: destination ?? stdoutDestination(),
      // One line per entry: a request is one line, its fields after the message, not one line each.
      singleLine: true,
      ignore: 'pid,hostname,service',
      translateTime: 'HH:MM:ss.l',
    }),
  );
}

export type { Logger };
