/**
 * @module tee
 * The server's TEE: settings, the dstack guest-API client, the built-in simulator, agent registration and the
 * `/api/tee` routes.
 */
export * from './tee-config';
export * from './tee-service';
export * from './tee-routes';
export * from './tee-agent-store';
export * from './dstack/create-dstack-client';
export type {
  DstackGuest,
  GetKeyRequest,
  GetKeyResponse,
  GetQuoteResponse,
  InfoResponse,
} from './dstack/dstack-guest';
export * from './simulator/create-dstack-simulator';
export * from './simulator/start-simulator-server';
export * from './database-tee-agent-store';
