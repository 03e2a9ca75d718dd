/**
 * @module @parley/server/internal
 * The pieces `createServer` composes, for tests and tools inside this repository. Unstable: they change
 * without a major version.
 */
export { AgentRegistry } from './agents/agent-registry';
export { AGENT_ID_NAMESPACE, agentIdOf, uuidV5 } from './agents/agent-id';
export { createAgentProfiles, toAgentProfile } from './agents/agent-profile';
export type { AgentProfile } from './agents/agent-profile';
export { ParleyAgentRuntime } from './agents/agent-runtime';
export type { AgentRuntimeContext, AgentServices } from './agents/agent-runtime';
export { DEFAULT_CHARACTER, characterSchema } from './agents/character';

export { DEFAULT_REPLY_LIMITS, MessagingService } from './messaging/messaging-service';
export type { MessagingServiceOptions, UserMessageInput } from './messaging/messaging-service';
export { ReplyStream } from './messaging/reply-stream';
export type { ReplyListener } from './messaging/reply-stream';
export type {
  ReplyEndPart,
  ReplyErrorPart,
  ReplyFinalPart,
  ReplyPart,
  ReplyStartPart,
  TextDeltaPart,
} from './messaging/reply-part';
export type { RoomBroadcaster } from './messaging/room-broadcaster';

export { ScheduledMessageDispatcher } from './scheduling';
export { createDatabase } from './storage/create-database';
export type { Database } from './storage/create-database';
