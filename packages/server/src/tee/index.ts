/**
 * @module tee
 * The server's TEE: settings, the dstack guest-API client, the built-in simulator, agent registration and the
 * `/api/tee` routes.
 */
export { DSTACK_SOCKET_PATH, DOCKER_SIMULATOR_ENDPOINT, TEE_OFF } from './tee-config';
export type { TeeConfig } from './tee-config';
export { createTeeService, MAX_NONCE_LENGTH } from './tee-service';
export type { TeeAgentInput, TeeService, TeeServiceOptions } from './tee-service';
export { teeRoutes } from './tee-routes';
export { createMemoryTeeAgentStore } from './tee-agent-store';
export type { TeeAgentStore } from './tee-agent-store';
export { createDstackClient } from './dstack/create-dstack-client';
export type { DstackClientOptions } from './dstack/create-dstack-client';
export type {
  DstackGuest,
  GetKeyRequest,
  GetKeyResponse,
  GetQuoteResponse,
  InfoResponse,
} from './dstack/dstack-guest';
export { createDstackSimulator } from './simulator/create-dstack-simulator';
export type { DstackSimulatorOptions } from './simulator/create-dstack-simulator';
export { startSimulatorServer } from './simulator/start-simulator-server';
export type { SimulatorServer, SimulatorServerOptions } from './simulator/start-simulator-server';
export { createDatabaseTeeAgentStore } from './database-tee-agent-store';
