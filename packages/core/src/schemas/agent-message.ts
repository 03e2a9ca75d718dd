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
import { toolCallRecordsSchema } from './tool-calls';

const rawMessageFields = {
  text: messageTextSchema.optional(),
  thought: messageTextSchema.optional(),
  actions: z.array(storableString().max(256)).max(64).optional(),
};

/**
 * The structured content of an agent-authored message, as stored: its text, optional thought and actions, and
 * the tool calls of a reply that made any (recorded by the server; see {@link submittedRawMessageSchema}).
 */
export const rawMessageSchema = z
  .looseObject({ ...rawMessageFields, toolCalls: toolCallRecordsSchema.optional() })
  .superRefine(refineStorableJson);

/** @see rawMessageSchema */
export type RawMessage = z.infer<typeof rawMessageSchema>;

/** Why a submitted `raw_message` may not carry `toolCalls`. */
export const TOOL_CALLS_NOT_SUBMITTABLE = 'tool calls are recorded by the server only';

/**
 * `raw_message` as a caller of `POST /api/messaging/submit` writes it: without `toolCalls`, so that nobody can
 * write an agent's tool history in its name.
 */
export const submittedRawMessageSchema = z
  .looseObject({
    ...rawMessageFields,
    toolCalls: z.never({ error: TOOL_CALLS_NOT_SUBMITTABLE }).optional(),
  })
  .superRefine(refineStorableJson);

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
  raw_message: submittedRawMessageSchema.optional(),
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
