import { createParleyClient } from '@parley/client/rest';
import { DEFAULT_SERVER_ID, type AgentMessageInput, type StoredMessage } from '@parley/core';
import type { AgentPostOptions, AgentRuntime } from '../plugin/runtime';

/** Where the messaging interface is when `SERVER_URL` is not set at all (SPEC.md's development address). */
const DEFAULT_SERVER_URL = 'http://localhost:3000';

/**
 * Options of {@link submitAgentMessage}: the message, as `runtime.sendMessage` takes it (`actions` default
 * `['REPLY']`; `metadata` gets `agent_id` and `agentName`), and how to reach the messaging interface.
 */
export interface SubmitAgentMessageOptions extends Pick<
  AgentPostOptions,
  'channelId' | 'text' | 'thought' | 'actions' | 'metadata' | 'serverId'
> {
  /** A fetch implementation (default: the global one). */
  fetch?: typeof fetch;
  /** Request timeout in milliseconds (default 30000). */
  timeoutMs?: number;
}

/**
 * Posts a message as the runtime's agent through `POST {SERVER_URL}/api/messaging/submit` (`x-api-key:
 * SERVER_AUTH_TOKEN` when set), the way an external system would. Non-2xx → throws ParleyClientError.
 *
 * @example
 * const message = await submitAgentMessage(runtime, { channelId, text: 'Build finished' });
 * res.json({ success: true, messageId: message.id });
 */
export function submitAgentMessage(
  runtime: AgentRuntime,
  options: SubmitAgentMessageOptions,
): Promise<StoredMessage> {
  const client = createParleyClient({
    baseUrl: runtime.getSetting('SERVER_URL') || DEFAULT_SERVER_URL,
    apiKey: runtime.getSetting('SERVER_AUTH_TOKEN') || undefined,
    fetch: options.fetch,
    timeout: options.timeoutMs,
  });
  return client.submit(toAgentMessage(runtime, options));
}

/** Builds SPEC.md's "Agent message" authored by the runtime's agent. */
export function toAgentMessage(
  runtime: AgentRuntime,
  options: SubmitAgentMessageOptions,
): AgentMessageInput {
  const rawMessage: { text: string; thought?: string; actions: string[] } = {
    text: options.text,
    actions: options.actions ?? ['REPLY'],
  };
  if (options.thought !== undefined) rawMessage.thought = options.thought;
  return {
    channel_id: options.channelId,
    server_id: options.serverId ?? DEFAULT_SERVER_ID,
    author_id: runtime.agentId,
    content: options.text,
    source_type: 'agent_response',
    raw_message: rawMessage,
    metadata: {
      ...options.metadata,
      agent_id: runtime.agentId,
      agentName: runtime.character.name,
    },
  };
}
