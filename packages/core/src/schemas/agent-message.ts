import { z } from 'zod';
import { DEFAULT_SERVER_ID } from '../constants';
import {
  attachmentSchema,
  entityIdSchema,
  labelSchema,
  messageTextSchema,
  refineStorableJson,
  storableString,
  uuidSchema,
} from './common';

/** The structured content of an agent-authored message: its text, optional thought and actions. */
export const rawMessageSchema = z
  .looseObject({
    text: messageTextSchema.optional(),
    thought: messageTextSchema.optional(),
    actions: z.array(storableString().max(256)).max(64).optional(),
  })
  .superRefine(refineStorableJson);

/** @see rawMessageSchema */
export type RawMessage = z.infer<typeof rawMessageSchema>;

/** Metadata of an agent message: agent identity plus free-form keys, optionally attachments. */
export const agentMessageMetadataSchema = z
  .looseObject({
    agent_id: storableString().max(256).optional(),
    agentName: storableString().max(256).optional(),
    attachments: z.array(attachmentSchema).max(64).optional(),
  })
  .superRefine(refineStorableJson);

/** Body of `POST /api/messaging/submit`. */
export const agentMessageSchema = z.object({
  channel_id: uuidSchema,
  server_id: uuidSchema.default(DEFAULT_SERVER_ID),
  author_id: entityIdSchema,
  content: messageTextSchema,
  source_type: labelSchema.max(64).default('api'),
  raw_message: rawMessageSchema.optional(),
  metadata: agentMessageMetadataSchema.default({}),
  in_reply_to: uuidSchema.optional(),
});

/** The agent message as a caller writes it (defaults not yet applied). */
export type AgentMessageInput = z.input<typeof agentMessageSchema>;
/** The agent message after validation, with defaults applied. */
export type AgentMessage = z.output<typeof agentMessageSchema>;

/** A message as stored and returned by the messaging API. */
export const storedMessageSchema = z.object({
  id: z.string(),
  channel_id: z.string(),
  server_id: z.string(),
  author_id: z.string(),
  author_name: z.string(),
  content: z.string(),
  source_type: z.string(),
  raw_message: rawMessageSchema.nullable(),
  metadata: z.record(z.string(), z.unknown()),
  in_reply_to: z.string().nullable(),
  created_at: z.string(),
});

/** @see storedMessageSchema */
export type StoredMessage = z.infer<typeof storedMessageSchema>;
