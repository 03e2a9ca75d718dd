/**
 * @module @parley/server
 * The Parley agent server: what a user composes. `createServer` with its options, the models agents answer
 * with, the logger, and the settings loader the `parley` app uses. Plugins are written against
 * `@parley/plugin-sdk`. The building blocks behind `createServer` are not exported: nothing outside this package
 * needed them.
 */
export { createServer } from './create-server';
export type { ParleyServer, ServerOptions } from './create-server';
export type { AgentRegistry } from './agents/agent-registry';
export type { ReplyLimits } from './messaging/messaging-service';
export type { AgentLoopLimits } from './reply/loop/loop-limits';
export type { ActionCallRequest, ActionCallResult } from './reply/tools/call-action';

export { checkCharacter, loadCharacterFile, parseCharacter } from './agents/character';
export { ConfigError } from './errors/config-error';
export { characterPaths, loadConfig, readDotEnv, toServerOptions } from './config/load-config';
export type { ParleyConfig } from './config/load-config';
export { createLogger, escapeControlCharacters, LOG_LEVELS } from './logger';
export { startTracing, tracingEnabled } from './tracing/start-tracing';
export type { StartedTracing } from './tracing/start-tracing';
export type { Logger } from './logger';

export { createElizaModel, createOpenAICompatibleModel, streamModel } from './models';
export { createModelFromEnv } from './config/model-settings';
export type {
  ElizaModelOptions,
  ModelFinishReason,
  ModelMessage,
  ModelProvider,
  ModelProviderV1,
  ModelProviderV2,
  ModelRequest,
  ModelSpecificationVersion,
  ModelStreamPart,
  ModelStreamPartV1,
  ModelStreamPartV2,
  ModelTool,
  ModelToolCall,
  ModelUsage,
  OpenAICompatibleModelOptions,
} from './models';

export type { DatabaseLocation } from './storage/create-database';
export { ReembedError, runReembed } from './memory';
export type {
  EmbeddingModelRecord,
  ReembedProgress,
  ReembedResult,
  RunReembedOptions,
  RunReembedOutcome,
} from './memory';
export { parseTeeConfig } from './config/tee-settings';
export type { TeeConfig } from './tee';
export type { ParleySocketServer } from './socket/create-socket-server';
export type { ClusterOptions } from './socket/create-adapter';
