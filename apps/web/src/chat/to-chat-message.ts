import type { MessageBroadcast, StoredMessage } from '@parley/core';
import type { ChatMessage, MessageRole } from './message-list';

/** Decides how a sender is shown: this browser, an agent, or someone else. */
export type RoleOf = (senderId: string) => MessageRole;

/** A stored message (history) as the list shows it. */
export function fromStored(message: StoredMessage, roleOf: RoleOf): ChatMessage {
  return {
    id: message.id,
    senderId: message.author_id,
    senderName: message.author_name,
    text: message.content,
    createdAt: message.created_at,
    inReplyTo: message.in_reply_to,
    role: roleOf(message.author_id),
  };
}

/** A `messageBroadcast` as the list shows it. */
export function fromBroadcast(message: MessageBroadcast, roleOf: RoleOf): ChatMessage {
  return {
    id: message.id,
    senderId: message.senderId,
    senderName: message.senderName,
    text: message.text,
    createdAt: message.createdAt,
    inReplyTo: message.inReplyTo,
    role: roleOf(message.senderId),
  };
}
