/**
 * @module @parley/server/health
 * Liveness and readiness: what load balancers and orchestrators ask before sending traffic.
 */
export { checkReadiness, databaseProbe, probeDatabaseLocation } from './readiness';
export type { ReadinessCheck, ReadinessProbe, ReadinessReport } from './readiness';
