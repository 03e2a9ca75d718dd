import type { MessageBroadcast, StoredMessage } from '@parley/core';
import { attachmentsOf } from './attachment-view';
import type { ChatMessage, MessageRole } from './message-list';
import type { ToolCallView } from './tool-card';

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
    toolCalls: toolCallsOf(message.raw_message?.toolCalls),
    attachments: attachmentsOf(message.metadata),
    regenerated: isRegenerated(message.metadata),
  };
}

/**
 * A reply's recorded tool calls (`raw_message.toolCalls`, `agentResponse.toolCalls`) as cards show them; records
 * without an id or a name are skipped (a server older than tool calls records none).
 */
export function toolCallsOf(records: unknown): ToolCallView[] | undefined {
  if (!Array.isArray(records)) return undefined;
  const calls = records.filter(
    (record): record is ToolCallView =>
      typeof record === 'object' &&
      record !== null &&
      typeof (record as ToolCallView).toolCallId === 'string' &&
      typeof (record as ToolCallView).toolName === 'string',
  );
  return calls.length > 0 ? calls : undefined;
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
    attachments: attachmentsOf(message.metadata),
    regenerated: isRegenerated(message.metadata),
  };
}

/** Whether a stored or broadcast message is an answer asked for again (`metadata.regenerated`). */
function isRegenerated(metadata: unknown): boolean {
  return (
    typeof metadata === 'object' &&
    metadata !== null &&
    (metadata as { regenerated?: unknown }).regenerated === true
  );
}
