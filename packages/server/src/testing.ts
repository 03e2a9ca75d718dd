/**
 * @module @parley/server/testing
 * Helpers for tests and benchmarks, not for production: a fast local OpenAI-compatible chat-completions
 * server that answers at once, so a client's own cost can be measured with the model call included.
 */
export { startFakeOpenAIServer } from './models/testing/fake-openai-server';
export type {
  FakeChatMessage,
  FakeOpenAIServer,
  FakeOpenAIServerMode,
  FakeOpenAIServerOptions,
} from './models/testing/fake-openai-server';
export { toSseEvents, toToolCallEvents } from './models/testing/chat-completion-bodies';
export type { ScriptedToolCall } from './models/testing/chat-completion-bodies';
/** The database as the server opens it (for the bench's bare server that writes what a message server must). */
export { createDatabase } from './storage/create-database';
