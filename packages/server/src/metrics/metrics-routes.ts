import { Hono } from 'hono';
import { hasServerToken, offeredApiKey, UNAUTHORIZED_MESSAGE } from '../guards/api-key';
import type { AppEnv } from '../http/app-env';
import { failure } from '../http/envelope';
import type { ParleyMetrics } from './create-metrics';

/** Where the Prometheus exposition is served. */
export const METRICS_PATH = '/metrics';

/** Options of {@link metricsRoutes}. */
export interface MetricsRoutesOptions {
  /**
   * When set, `GET /metrics` requires it as `x-api-key` or `Authorization: Bearer` (what Prometheus sends),
   * compared in constant time.
   */
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
    const offered = offeredApiKey({ header: (name) => c.req.header(name) }, { bearer: true });
    if (!hasServerToken(offered, options.authToken)) {
      return c.json(failure('UNAUTHORIZED', UNAUTHORIZED_MESSAGE), 401);
    }
    const { contentType, body } = await metrics.render();
    return c.body(body, 200, { 'content-type': contentType });
  });
  return routes;
}
