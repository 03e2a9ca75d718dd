import { createHash } from 'node:crypto';
import { type StoredMessage, uuidFromBytes } from '@parley/core';

/**
 * A stored message with elizaOS's camel-case names beside Parley's, as elizaOS's server answers messages (it
 * too sends both): one stored record, two vocabularies. Parley's clients read the snake-case fields.
 */
export function withElizaNames(message: StoredMessage) {
  return {
    ...message,
    channelId: message.channel_id,
    authorId: message.author_id,
    createdAt: message.created_at,
    updatedAt: message.created_at,
    sourceType: message.source_type,
    ...(message.in_reply_to ? { inReplyToRootMessageId: message.in_reply_to } : {}),
    ...(message.raw_message ? { rawMessage: message.raw_message } : {}),
  };
}

/**
 * The id of the DM channel between two participants, whichever of them asks: a name-based UUID of the pair in
 * sorted order, so that every process finds the same channel without a lookup table.
 */
export function dmChannelId(first: string, second: string): string {
  const pair = [first, second].sort().join('\n');
  return uuidFromBytes(createHash('sha256').update(`parley-dm\n${pair}`).digest(), 8);
}
