import { API_KEY_HEADER, ParleyError } from '@parley/core';
import { safeEqual } from '@parley/plugin-sdk';
import { Hono, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { requestId } from 'hono/request-id';
import type { Logger } from 'pino';
import type { AppEnv } from './app-env';
import { failure } from './envelope';
import { handleError } from './error-handler';

/** Options of {@link createHttpApp}. */
export interface HttpAppOptions {
  logger: Logger;
  /** When set, `/api` endpoints require `x-api-key` equal to it. */
  authToken?: string;
  /** Maximum JSON body size in bytes. */
  bodyLimit: number;
}

/** Requires `x-api-key` to equal the server token, compared in constant time. */
export function apiKeyAuth(token: string): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!safeEqual(c.req.header(API_KEY_HEADER), token)) {
      throw new ParleyError('UNAUTHORIZED', 'Missing or invalid x-api-key header');
    }
    await next();
  };
}

/**
 * The hono app with everything every route shares: request ids, a per-request logger, the body limit, API-key
 * auth on `/api`, the `/api` envelope for unknown paths, and the one error handler.
 */
export function createHttpApp(options: HttpAppOptions): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.use(requestId());
  app.use(async (c, next) => {
    const id = c.get('requestId');
    const logger = options.logger.child({ requestId: id });
    c.set('logger', logger);
    const started = performance.now();
    await next();
    logger.debug(
      {
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round((performance.now() - started) * 10) / 10,
      },
      'request',
    );
  });

  app.use(
    '/api/*',
    bodyLimit({
      maxSize: options.bodyLimit,
      onError: () => {
        throw new ParleyError(
          'PAYLOAD_TOO_LARGE',
          `Request body exceeds the limit of ${options.bodyLimit} bytes`,
        );
      },
    }),
  );
  if (options.authToken) app.use('/api/*', apiKeyAuth(options.authToken));

  app.notFound((c) =>
    c.json(failure('NOT_FOUND', `No route for ${c.req.method} ${c.req.path}`), 404),
  );
  app.onError(handleError);
  return app;
}
