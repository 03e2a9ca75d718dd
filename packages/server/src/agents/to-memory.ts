import type { StoredMessage } from '@parley/core';
import type { Memory } from '@parley/plugin-sdk';

/**
 * A stored message as elizaOS actions, providers and evaluators see it: its author as `entityId`, its channel as
 * `roomId` (and `channelId`), its server as `worldId`, its text, thought, actions and attachments as `content`.
 */
export function toMemory(message: StoredMessage, agentId: string): Memory {
  const raw = message.raw_message ?? {};
  const attachments = message.metadata?.attachments;
  return {
    id: message.id,
    entityId: message.author_id,
    agentId,
    roomId: message.channel_id,
    channelId: message.channel_id,
    worldId: message.server_id,
    content: {
      text: message.content,
      source: message.source_type,
      ...(typeof raw.thought === 'string' ? { thought: raw.thought } : {}),
      ...(Array.isArray(raw.actions) ? { actions: raw.actions } : {}),
      ...(Array.isArray(attachments) ? { attachments } : {}),
      ...(message.in_reply_to ? { inReplyTo: message.in_reply_to } : {}),
    },
    createdAt: Date.parse(message.created_at),
    metadata: { ...message.metadata, authorName: message.author_name },
  };
}
