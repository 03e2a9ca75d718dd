import {
  entityIdSchema,
  isRecord,
  labelSchema,
  messageTextSchema,
  metadataSchema,
  parseOrThrow,
} from '@parley/core';
import type { Context } from 'hono';
import { z } from 'zod';
import type { AppEnv } from '../http/app-env';
import { success } from '../http/envelope';
import { idempotencyKey } from '../http/idempotency-key';
import { askerOf, postingEntity } from '../identity/channel-access';
import type { MessagingService } from '../messaging/messaging-service';
import { withElizaNames } from './eliza-shapes';

/** Who posts an elizaOS-shaped channel message that names nobody (`postMessage` sends no author). */
export const ELIZA_DEFAULT_AUTHOR = 'eliza-api-client';

/**
 * elizaOS's channel message body (`messaging.postMessage`: `{ content, metadata }`, and its server's
 * `author_id`, `in_reply_to_message_id`, `source_type`).
 */
const elizaPostSchema = z.object({
  content: messageTextSchema.min(1, 'must not be empty'),
  metadata: metadataSchema.optional(),
  author_id: entityIdSchema.optional(),
  authorId: entityIdSchema.optional(),
  source_type: labelSchema.max(64).optional(),
});

/**
 * Whether a channel message body is elizaOS's shape rather than Parley's: `content` without `text`. Parley's
 * shape (SPEC) always has `text`, so the two cannot be mistaken for each other.
 */
export function isElizaPost(body: unknown): boolean {
  return isRecord(body) && typeof body.content === 'string' && body.text === undefined;
}

/**
 * Posts an elizaOS-shaped message: stored, the room hears it and the channel's agent replies on the socket
 * (mode `websocket`); answered as elizaOS's server answers, 201 with the message in the envelope.
 */
export async function postElizaMessage(
  c: Context<AppEnv>,
  messaging: MessagingService,
  channelId: string,
  body: unknown,
): Promise<Response> {
  const post = parseOrThrow(elizaPostSchema, body, 'message');
  const metadata = post.metadata ?? {};
  const displayName = metadata.user_display_name ?? metadata.authorDisplayName;
  const { message } = await messaging.converse({
    channelId,
    text: post.content,
    entityId: postingEntity(askerOf(c), post.author_id ?? post.authorId) ?? ELIZA_DEFAULT_AUTHOR,
    ...(typeof displayName === 'string' && displayName.trim() !== ''
      ? { senderName: displayName.slice(0, 256) }
      : {}),
    metadata,
    source: post.source_type ?? 'api',
    idempotencyKey: idempotencyKey(c),
    delivery: 'websocket',
  });
  return c.json(success(withElizaNames(message)), 201);
}

/**
 * `POST /api/messaging/submit` as elizaOS's client sends it (`{ agentId, channelId, content,
 * inReplyToMessageId?, metadata? }`), turned into Parley's body; Parley's own body passes unchanged.
 */
export function fromElizaSubmit(body: unknown): unknown {
  if (!isRecord(body) || body.channel_id !== undefined || body.channelId === undefined) return body;
  const {
    channelId,
    agentId,
    authorId,
    inReplyToMessageId,
    messageServerId,
    rawMessage,
    sourceType,
    ...rest
  } = body;
  return {
    ...rest,
    channel_id: channelId,
    author_id: agentId ?? authorId,
    ...(inReplyToMessageId === undefined ? {} : { in_reply_to: inReplyToMessageId }),
    ...(messageServerId === undefined ? {} : { server_id: messageServerId }),
    ...(rawMessage === undefined ? {} : { raw_message: rawMessage }),
    ...(sourceType === undefined ? {} : { source_type: sourceType }),
  };
}
