import { DEFAULT_SERVER_ID, reservedUuid, type StoredMessage } from '@parley/core';
import type { AgentPostOptions } from '@parley/plugin-sdk';
import type { Logger } from 'pino';
import type { ParleyAgentRuntime } from '../../agents/agent-runtime';
import { toMemory } from '../../agents/to-memory';
import { loopLimitsFor, secretsOf, type AgentLoopLimits } from '../loop/loop-limits';
import { postCallbackContent } from './post-callback-content';
import { runToolCall, type ToolOutput } from './run-tool-call';

/** One action called directly, as the plugin test harness does. */
export interface ActionCallRequest {
  /** The action's name (or a simile). */
  action: string;
  /** Its arguments, checked against its `parameters` as a model's would be. */
  parameters?: unknown;
  /** The message the action answers (default: empty). */
  text?: string;
  /** The channel it is in, where its callback posts (default: a new one). */
  channelId?: string;
  /** The agent whose action it is (default: the default agent). */
  agentId?: string;
  /** Who sent the message (default `test-user`). */
  entityId?: string;
}

/** What a direct call came to: the result the model would be given, or the error, and what it posted. */
export interface ActionCallResult {
  output?: ToolOutput;
  error?: string;
  /** The messages its callback posted, in order. */
  posted: StoredMessage[];
}

/** What calling an action directly needs. */
export interface CallActionContext {
  agent: ParleyAgentRuntime;
  limits: AgentLoopLimits;
  logger: Logger;
  serverSecrets: readonly string[];
  post: (agent: ParleyAgentRuntime, post: AgentPostOptions) => Promise<StoredMessage>;
}

/**
 * Runs one action of an agent the way the agent loop does (arguments checked, deadline, the callback posting
 * as the agent, secrets hidden, failures as an `error`), outside any reply: the plugin test harness's way to
 * drive an action. Its providers compose the state it gets.
 */
export async function callAction(
  context: CallActionContext,
  request: ActionCallRequest,
): Promise<ActionCallResult> {
  const { agent, logger } = context;
  const limits = loopLimitsFor(agent.character, context.limits);
  const channelId = request.channelId ?? reservedUuid();
  const now = new Date().toISOString();
  const message: StoredMessage = {
    id: reservedUuid(),
    channel_id: channelId,
    server_id: DEFAULT_SERVER_ID,
    author_id: request.entityId ?? 'test-user',
    author_name: request.entityId ?? 'test-user',
    content: request.text ?? '',
    source_type: 'test',
    raw_message: null,
    metadata: {},
    in_reply_to: null,
    created_at: now,
  };
  const memory = toMemory(message, agent.agentId);
  const posted: StoredMessage[] = [];
  const outcome = await runToolCall(
    {
      toolCallId: `call_${reservedUuid()}`,
      toolName: request.action,
      input: request.parameters ?? {},
    },
    {
      findAction: (name) => agent.abilities.findAction(name),
      message: memory,
      state: await agent.composeState(memory),
      signal: new AbortController().signal,
      timeoutMs: limits.toolTimeoutMs,
      resultLimit: limits.toolResultLimit,
      post: async (content) => {
        const { memories, stored } = await postCallbackContent(
          (post) => context.post(agent, post),
          agent.agentId,
          content,
          { channelId },
        );
        if (stored) posted.push(stored);
        return memories;
      },
      logger,
      secrets: [...secretsOf(agent.character), ...context.serverSecrets],
    },
  );
  return {
    ...(outcome.error === undefined ? { output: outcome.output ?? {} } : { error: outcome.error }),
    posted,
  };
}
