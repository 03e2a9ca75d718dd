/**
 * @module @parley/server
 * The Parley agent server: hono on @hono/node-server with socket.io on the same port, agents, storage, the
 * messaging runtime, scheduled messages, plugin routes and TEE attestation.
 */
export { createServer } from './create-server';
export type { ParleyServer, ServerOptions } from './create-server';

export { AgentRegistry } from './agents/agent-registry';
export { AGENT_ID_NAMESPACE, agentIdOf, uuidV5 } from './agents/agent-id';
export { ParleyAgentRuntime } from './agents/agent-runtime';
export type { AgentServices } from './agents/agent-runtime';
export {
  DEFAULT_CHARACTER,
  characterSchema,
  loadCharacterFile,
  parseCharacter,
} from './agents/character';

export { ConfigError } from './config/config-error';
export { characterPaths, loadConfig, readDotEnv, toServerOptions } from './config/load-config';
export type { ParleyConfig } from './config/load-config';
export { createLogger, LOG_LEVELS } from './logger';
export type { Logger } from './logger';

export { MessagingService } from './messaging/messaging-service';
export type { AgentReply, ReplyOptions, UserMessageInput } from './messaging/messaging-service';
export type { RoomBroadcaster } from './messaging/room-broadcaster';

export { createElizaModel, createModelFromEnv, createOpenAICompatibleModel } from './models';
export type {
  ElizaModelOptions,
  ModelMessage,
  ModelProvider,
  ModelRequest,
  OpenAICompatibleModelOptions,
} from './models';

export { ScheduledMessageDispatcher } from './scheduling';
export { createDatabase } from './storage/create-database';
export type { Database, DatabaseLocation } from './storage/create-database';

export { parseTeeConfig } from './tee';
export type { TeeConfig } from './tee';
export type { ParleySocketServer } from './socket/create-socket-server';
