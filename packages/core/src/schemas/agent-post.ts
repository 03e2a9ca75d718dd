import { z } from 'zod';
import { isReservedUuid } from '../ids/reserved-uuid';
import {
  labelSchema,
  messageTextSchema,
  metadataSchema,
  storableString,
  uuidSchema,
} from './common';

/** A message an agent posts through its runtime (`runtime.sendMessage`): checked before anything is stored. */
export const agentPostSchema = z.object({
  channelId: uuidSchema,
  text: messageTextSchema.min(1, 'must not be empty'),
  thought: storableString().max(100_000).optional(),
  actions: z.array(labelSchema).max(64).optional(),
  metadata: metadataSchema.optional(),
  serverId: uuidSchema.optional(),
  inReplyTo: uuidSchema.optional(),
  /** The id to store the post under (an idempotent post); the server's own ids (version 8) are refused. */
  id: uuidSchema
    .refine((id) => !isReservedUuid(id), 'must not be a version 8 UUID (the server reserves those)')
    .optional(),
});

/** @see agentPostSchema */
export type AgentPost = z.output<typeof agentPostSchema>;
