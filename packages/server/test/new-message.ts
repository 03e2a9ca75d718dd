import { randomUUID } from 'node:crypto';
import { DEFAULT_SERVER_ID } from '@parley/core';
import type { NewMessage } from '../src/storage/message-store';

/** A message to store in `channelId`, with a fresh id, an API author and `overrides` on top. */
export function newMessage(
  channelId: string,
  content: string,
  overrides: Partial<NewMessage> = {},
): NewMessage {
  return {
    id: randomUUID(),
    channelId,
    serverId: DEFAULT_SERVER_ID,
    authorId: 'user-1',
    authorName: 'User One',
    content,
    sourceType: 'api',
    metadata: { n: content },
    createdAt: new Date(),
    ...overrides,
  };
}
