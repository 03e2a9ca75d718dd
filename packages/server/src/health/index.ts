/**
 * @module @parley/server/health
 * Liveness and readiness: what load balancers and orchestrators ask before sending traffic.
 */
export { checkReadiness, databaseProbe, probeDatabaseLocation, roomsProbe } from './readiness';
export { DependencyError, describeFailure } from './dependency-error';
export { probeRedis } from './probe-redis';
export { probeMcpServers, type McpProbeResult } from '../mcp/client/probe-mcp-servers';
export type { ReadinessCheck, ReadinessProbe, ReadinessReport } from './readiness';
