/**
 * @module @parley/server/metrics
 * Prometheus metrics (prom-client): HTTP requests and latencies, sockets, rooms, replies, model latency and
 * errors, queue depths and the database pool, served at `GET /metrics`.
 */
export { createMetrics } from './create-metrics';
export type {
  HttpRequestSample,
  MetricsOptions,
  MetricsSources,
  ParleyMetrics,
  PoolState,
  ReplyOutcome,
} from './create-metrics';
export { METRICS_PATH, metricsRoutes } from './metrics-routes';
export type { MetricsRoutesOptions } from './metrics-routes';
export { observeReply } from './observe-reply';
export { socketSources } from './socket-sources';
export type { SocketServerLike } from './socket-sources';
