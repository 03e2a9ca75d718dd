import type { MessageBroadcast, StoredMessage } from '@parley/core';

/** The `messageBroadcast` payload of a stored message. */
export function toBroadcast(message: StoredMessage): MessageBroadcast {
  const broadcast: MessageBroadcast = {
    id: message.id,
    roomId: message.channel_id,
    channelId: message.channel_id,
    senderId: message.author_id,
    senderName: message.author_name,
    text: message.content,
    source: message.source_type,
    metadata: message.metadata,
    inReplyTo: message.in_reply_to,
    createdAt: message.created_at,
  };
  if (message.raw_message?.thought !== undefined) broadcast.thought = message.raw_message.thought;
  if (message.raw_message?.actions !== undefined) broadcast.actions = message.raw_message.actions;
  return broadcast;
}
