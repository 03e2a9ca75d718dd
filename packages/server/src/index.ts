/**
 * @module @parley/server
 * The Parley agent server: hono on @hono/node-server with socket.io on the same port, agents, storage, the
 * messaging runtime, plugin routes and TEE attestation.
 */
export { createServer } from './create-server';
export type { ParleyServer, ServerOptions } from './create-server';
export { AgentRegistry } from './agents/agent-registry';
export { AGENT_ID_NAMESPACE, agentIdOf, uuidV5 } from './agents/agent-id';
export { ParleyAgentRuntime } from './agents/agent-runtime';
export {
  DEFAULT_CHARACTER,
  characterSchema,
  loadCharacterFile,
  parseCharacter,
} from './agents/character';
export { ConfigError } from './config/config-error';
export { createLogger, LOG_LEVELS } from './logger';
export type { Logger } from './logger';
export type { ParleySocketServer } from './socket/create-socket-server';
export { characterPaths, loadConfig, readDotEnv } from './config/load-config';
export type { ParleyConfig } from './config/load-config';
