import { API_KEY_HEADER } from '@parley/core';
import { safeEqual } from '@parley/plugin-sdk';
import { Hono } from 'hono';
import type { AppEnv } from '../http/app-env';
import { failure } from '../http/envelope';
import type { ParleyMetrics } from './create-metrics';

/** Where the Prometheus exposition is served. */
export const METRICS_PATH = '/metrics';

/** Options of {@link metricsRoutes}. */
export interface MetricsRoutesOptions {
  /** When set, `GET /metrics` requires `x-api-key` equal to it (compared in constant time). */
  authToken?: string;
}

/**
 * `GET /metrics`: the Prometheus text exposition. It lies outside `/api` (where scrapers look for it), so it
 * checks the server token itself.
 */
export function metricsRoutes(
  metrics: ParleyMetrics,
  options: MetricsRoutesOptions = {},
): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get(METRICS_PATH, async (c) => {
    if (options.authToken && !safeEqual(c.req.header(API_KEY_HEADER), options.authToken)) {
      return c.json(failure('UNAUTHORIZED', 'Missing or invalid x-api-key header'), 401);
    }
    const { contentType, body } = await metrics.render();
    return c.body(body, 200, { 'content-type': contentType });
  });
  return routes;
}
