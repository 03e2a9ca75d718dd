import type { MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { Level, Logger } from 'pino';
import { bindLogFields, withLogFields } from '../tracing/log-context';
import type { AppEnv } from './app-env';

/** What the request log knows about one finished request. */
export interface RequestLogEntry {
  method: string;
  /** The path as requested, without the query string (it may carry secrets). */
  path: string;
  /** The route pattern that answered (`/api/messaging/channels/:channelId/messages`), or `unmatched`. */
  route: string;
  status: number;
  /** Wall time from the first middleware to the response, in milliseconds (one decimal). */
  ms: number;
  requestId: string;
}

/** Options of {@link requestLog}. */
export interface RequestLogOptions {
  logger: Logger;
  /** Level of the one line logged per request (default `info`; `silent` logs none). */
  requestLogLevel?: Level | 'silent';
  /** Called once per finished request, e.g. to record HTTP metrics. Must not throw. */
  onRequest?: (entry: RequestLogEntry) => void;
}

/** The registered pattern of the handler that answered, so that metrics labels stay few. */
function routeOf(c: Parameters<MiddlewareHandler<AppEnv>>[0]): string {
  if (c.res.status === 404 && c.req.routeIndex === 0) return 'unmatched';
  const route = matchedRoutes(c)[c.req.routeIndex];
  if (!route || route.method === 'ALL' || route.path === '*' || route.path === '/*')
    return 'unmatched';
  return route.path;
}

/**
 * Gives each request a child logger carrying its request id (`c.get('logger')`), as does every line written by
 * what the request starts (its reply: the server logger's mixin), and, once the response is
 * ready, logs one line — method, path, status, ms, request id — at `requestLogLevel` and hands the same entry to
 * `onRequest`. Streamed responses are logged when their headers are ready, not when the stream ends.
 */
export function requestLog(options: RequestLogOptions): MiddlewareHandler<AppEnv> {
  const level = options.requestLogLevel ?? 'info';
  return async (c, next) => {
    const requestId = c.get('requestId');
    const logger = bindLogFields(options.logger, { requestId });
    c.set('logger', logger);
    // Every line written for the request, by its handler and by what it starts (its reply), names it.
    return withLogFields({ requestId }, () => logged(requestId, logger, c, next));
  };

  async function logged(
    requestId: string,
    logger: Logger,
    c: Parameters<MiddlewareHandler<AppEnv>>[0],
    next: () => Promise<void>,
  ): Promise<void> {
    const started = performance.now();
    try {
      await next();
    } finally {
      const entry: RequestLogEntry = {
        method: c.req.method,
        path: c.req.path,
        route: routeOf(c),
        status: c.res.status,
        ms: Math.round((performance.now() - started) * 10) / 10,
        requestId,
      };
      if (level !== 'silent') {
        logger[level](
          { method: entry.method, path: entry.path, status: entry.status, ms: entry.ms },
          `${entry.method} ${entry.path} ${entry.status} ${entry.ms} ms`,
        );
      }
      options.onRequest?.(entry);
    }
  }
}
