import { context, SpanKind, SpanStatusCode, trace, type Tracer } from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_URL_PATH,
} from './semantic-attributes';
import type { Context as HonoContext, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { AppEnv } from '../http/app-env';
import { extractTraceContext } from './trace-context';

/** The registered pattern that answered (`/api/messaging/channels/:channelId/messages`), or none. */
function routeOf(c: HonoContext<AppEnv>): string | undefined {
  const route = matchedRoutes(c)[c.req.routeIndex];
  if (!route || route.method === 'ALL' || route.path === '*' || route.path === '/*') return;
  return route.path;
}

/**
 * A SERVER span for each request, continuing the caller's trace when it sends a valid `traceparent`, named
 * `{method} {route}` once the route is known; the span is active while the request is handled, so what the
 * request starts (a reply) is its child. Streamed responses end their span when the headers are ready.
 */
export function httpTracing(tracer: Tracer): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const method = c.req.method;
    const parent = extractTraceContext(c, {
      get: (carrier, key) => carrier.req.header(key),
      keys: () => [],
    });
    const span = tracer.startSpan(
      method,
      {
        kind: SpanKind.SERVER,
        attributes: { [ATTR_HTTP_REQUEST_METHOD]: method, [ATTR_URL_PATH]: c.req.path },
      },
      parent,
    );
    try {
      await context.with(trace.setSpan(parent, span), next);
    } finally {
      const route = routeOf(c);
      const status = c.res.status;
      if (route) {
        span.setAttribute(ATTR_HTTP_ROUTE, route);
        span.updateName(`${method} ${route}`);
      }
      span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
      if (status >= 500) {
        span.setAttribute(ATTR_ERROR_TYPE, String(status));
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
    }
  };
}
