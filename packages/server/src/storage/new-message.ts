import type { RawMessage } from '@parley/core';

/** A message about to be stored. */
export interface NewMessage {
  id: string;
  channelId: string;
  serverId: string;
  authorId: string;
  authorName: string;
  content: string;
  sourceType: string;
  rawMessage?: RawMessage | null;
  metadata: Record<string, unknown>;
  inReplyTo?: string | null;
  createdAt: Date;
  /** The agent that answers in the channel, recorded when this message creates it. */
  channelAgentId?: string | null;
}
