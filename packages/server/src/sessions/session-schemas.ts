import { messageTextSchema, metadataSchema, uuidSchema } from '@parley/core';
import { z } from 'zod';

/** Largest `metadata` of a session, in bytes of JSON. */
export const MAX_SESSION_METADATA_BYTES = 4096;
/** Most sessions `GET /api/messaging/sessions` lists (most recently active first). */
export const SESSION_LIST_LIMIT = 100;

const boundedMetadata = metadataSchema.refine(
  (value) => Buffer.byteLength(JSON.stringify(value)) <= MAX_SESSION_METADATA_BYTES,
  `must be at most ${MAX_SESSION_METADATA_BYTES} bytes of JSON`,
);

/** Body of `POST /api/messaging/sessions` (elizaOS `CreateSessionParams`). */
export const createSessionBodySchema = z.object({
  agentId: uuidSchema,
  userId: uuidSchema,
  metadata: boundedMetadata.optional(),
});

/** An attachment of a session message (elizaOS `MessageAttachment`). */
const sessionAttachmentSchema = z.looseObject({
  type: z.enum(['image', 'file', 'audio', 'video', 'document']),
  url: z.string().max(2048),
  name: z.string().max(1024).optional(),
  size: z.number().int().nonnegative().optional(),
  mimeType: z.string().max(256).optional(),
});

/** Body of `POST /api/messaging/sessions/{sessionId}/messages` (elizaOS `SendMessageParams`). */
export const sessionMessageBodySchema = z.object({
  content: messageTextSchema.min(1, 'must not be empty'),
  attachments: z.array(sessionAttachmentSchema).max(10).optional(),
  metadata: metadataSchema.optional(),
  /** `http`: wait for the reply; `sse`: stream it; `websocket` (default): the room gets it. */
  transport: z.enum(['http', 'sse', 'websocket']).optional(),
  /** elizaOS's older name of `transport`: `sync`, `stream`, `websocket`. */
  mode: z.enum(['sync', 'stream', 'websocket']).optional(),
});

/** An instant as elizaOS clients send it: epoch milliseconds or an ISO 8601 date-time. */
const instantQuery = z
  .string()
  .max(64)
  .transform((value, context) => {
    const date = /^\d+$/.test(value) ? new Date(Number(value)) : new Date(value);
    if (Number.isNaN(date.getTime()) || date.getUTCFullYear() < 1 || date.getUTCFullYear() > 9999) {
      context.addIssue({
        code: 'custom',
        message: 'must be epoch milliseconds or an ISO 8601 date-time',
      });
      return z.NEVER;
    }
    return date;
  });

/** Query of `GET /api/messaging/sessions/{sessionId}/messages`. */
export const sessionMessagesQuerySchema = z.object({
  // Above 100 clamped to 100, as elizaOS's sessions API does, rather than refused.
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .transform((limit) => Math.min(limit, 100))
    .default(50),
  before: instantQuery.optional(),
  after: instantQuery.optional(),
});
