import type { StoredMessage } from '@parley/core';
import type { AgentPostOptions } from '@parley/plugin-sdk';
import type { AgentProfile } from '../agents/agent-profile';
import { DEFAULTS } from '../defaults';
import type { ModelReplyContext } from '../reply/loop/loop-types';
import { createReplyExtractor } from '../reply/loop/reply-extractor';
import { postCallbackContent } from '../reply/tools/post-callback-content';
import type { MessagingServiceOptions } from './messaging-types';
import type { ReplyRegistry } from './reply-registry';

/**
 * The agent loop's context (less the signal) of a messaging service's replies: its options with their defaults,
 * the registry that learns when a reply is being stored, and how an action's callback posts as the agent.
 */
export function replyContextOf(
  options: MessagingServiceOptions,
  replies: ReplyRegistry,
  postAgentMessage: (agent: AgentProfile, post: AgentPostOptions) => Promise<StoredMessage>,
): Omit<ModelReplyContext, 'signal'> {
  return {
    store: options.store,
    model: options.model,
    logger: options.logger,
    historyLimit: options.historyLimit ?? DEFAULTS.internals.historyLimit,
    createExtractor: options.createExtractor ?? createReplyExtractor,
    abilitiesOf: options.abilitiesOf,
    loopLimits: { ...DEFAULTS.agentLoop, ...options.loopLimits },
    serverSecrets: options.serverSecrets,
    telemetry: options.telemetry,
    attachments: options.attachments,
    beginStore: (replyId) => replies.beginStore(replyId),
    receiptIdOf: options.receiptIdOf,
    conversation: options.conversation,
    afterReply: options.afterReply,
    recallers: options.recallers,
    pauses: options.approvals && {
      store: options.approvals.store,
      timeoutMs: options.approvals.timeoutMs ?? DEFAULTS.approvals.timeoutMs,
    },
    postAsAgent: async (agent, content, inReplyTo) =>
      (
        await postCallbackContent((post) => postAgentMessage(agent, post), agent.agentId, content, {
          channelId: inReplyTo.channel_id,
          serverId: inReplyTo.server_id,
          inReplyTo: inReplyTo.id,
        })
      ).memories,
  };
}
