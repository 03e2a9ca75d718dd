/**
 * @module @parley/server/metrics
 * Prometheus metrics (prom-client): HTTP requests and latencies, sockets, rooms, replies, model latency and
 * errors, queue depths and the database pool, served at `GET /metrics`.
 */
export * from './create-metrics';
export * from './metrics-routes';
export { observeReply } from './observe-reply';
export * from './socket-sources';
