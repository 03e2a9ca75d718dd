import type { MessageBroadcast, StoredMessage } from '@parley/core';
import { attachmentsOf } from './attachment-view';
import type { ChatMessage, MessageRole } from './message-list';
import type { UsedSource } from './message-item';
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
    usedSources: usedSourcesOf(message.metadata) ?? usedSourcesOf(message.raw_message),
  };
}

/**
 * The knowledge an answer drew on (`sources` of its metadata or its raw message): entries without an id or a
 * title are skipped (a server older than sources records none).
 */
export function usedSourcesOf(record: unknown): UsedSource[] | undefined {
  const sources = (record as { sources?: unknown } | null | undefined)?.sources;
  if (!Array.isArray(sources)) return undefined;
  const used = sources.filter(
    (source): source is UsedSource =>
      typeof source === 'object' &&
      source !== null &&
      typeof (source as UsedSource).id === 'string' &&
      typeof (source as UsedSource).title === 'string',
  );
  return used.length > 0 ? used.map(({ id, title }) => ({ id, title })) : undefined;
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
    usedSources: usedSourcesOf(message.metadata),
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
