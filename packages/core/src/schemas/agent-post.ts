import { z } from 'zod';
import { labelSchema, messageTextSchema, metadataSchema, storableString, uuidSchema } from './common';

/** A message an agent posts through its runtime (`runtime.sendMessage`): checked before anything is stored. */
export const agentPostSchema = z.object({
  channelId: uuidSchema,
  text: messageTextSchema.min(1, 'must not be empty'),
  thought: storableString().max(100_000).optional(),
  actions: z.array(labelSchema).max(64).optional(),
  metadata: metadataSchema.optional(),
  serverId: uuidSchema.optional(),
  inReplyTo: uuidSchema.optional(),
});

/** @see agentPostSchema */
export type AgentPost = z.output<typeof agentPostSchema>;
