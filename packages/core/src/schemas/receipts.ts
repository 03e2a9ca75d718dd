import { z } from 'zod';
import { teeAgentSchema, teeEventSchema } from './tee';

/** A SHA-256 digest, 64 lower-case hex digits. */
const digestSchema = z.string().regex(/^[0-9a-f]{64}$/, 'a SHA-256 digest in lower-case hex');

/** Longest id, name or key a receipt carries, in characters. */
const MAX_FIELD_LENGTH = 1024;
const field = () => z.string().min(1).max(MAX_FIELD_LENGTH);

/** Most tool calls, approvals or removed receipts one receipt lists (a reply records at most 256 calls). */
const MAX_ENTRIES = 1024;

/** A tool call a reply made: its name in clear, the digests of its input and of its result. */
export const receiptToolCallSchema = z.strictObject({
  id: field(),
  name: field(),
  /** SHA-256 of the JCS encoding of the call's input as stored. */
  input: digestSchema,
  /** SHA-256 of the JCS encoding of `{ output }` or `{ error }` as stored. */
  result: digestSchema,
});

/** A person's decision that let a call run (or refused it). */
export const receiptApprovalSchema = z.strictObject({
  toolCallId: field(),
  decision: z.enum(['approved', 'denied', 'expired']),
  /** Who decided, as the server knows them (null: the server did not record who). */
  decidedBy: field().nullable(),
  /** When (ISO 8601). */
  decidedAt: field(),
});

/** The agent registration a receipt's key is bound to: the fields the agent's TEE quote binds. */
export const receiptAgentSchema = z.strictObject({
  agentId: field(),
  agentName: z.string().max(MAX_FIELD_LENGTH),
  /** Uncompressed secp256k1 public key, `0x04…` (65 bytes). */
  publicKey: z.string().regex(/^0x04[0-9a-fA-F]{128}$/, 'an uncompressed secp256k1 public key'),
  createdAt: z.number().int().nonnegative(),
});

/** What a reply receipt states about the reply. */
export const receiptReplySchema = z.strictObject({
  /** SHA-256 of the reply's text (UTF-8). */
  content: digestSchema,
  toolCalls: z.array(receiptToolCallSchema).max(MAX_ENTRIES),
  approvals: z.array(receiptApprovalSchema).max(MAX_ENTRIES),
  /** The user message it answers and the SHA-256 of that message's text. */
  inReplyTo: z.strictObject({ messageId: field(), content: digestSchema }).nullable(),
});

/** What a tombstone says was removed, and by whom. */
export const receiptTombstoneSchema = z.strictObject({
  reason: z.enum(['message-deleted', 'history-cleared', 'channel-deleted']),
  /** Who removed it, as the server knows them (null: not known). */
  removedBy: field().nullable(),
  /** The removed replies' receipts: their message ids and receipt digests (at most the newest 1024). */
  removed: z.array(z.strictObject({ messageId: field(), receipt: digestSchema })).max(MAX_ENTRIES),
  /** How many replies of this chain were removed (may exceed `removed.length`). */
  count: z.number().int().nonnegative(),
});

/** The signed part of a receipt. Its digest is SHA-256 of `"parley/receipt/v1" || 0x00 || JCS(body)`. */
export const receiptBodySchema = z.strictObject({
  v: z.literal(1),
  kind: z.enum(['reply', 'tombstone']),
  /** The receipt's own id. */
  id: field(),
  /** Position in its chain (its agent in its channel), from 1. */
  seq: z.number().int().min(1),
  /** The digest of the previous receipt of this agent in this channel; null for the first. */
  prev: digestSchema.nullable(),
  channelId: field(),
  /** The reply's message id (a tombstone: the reply removed, or null for many). */
  messageId: field().nullable(),
  /** When the receipt was signed (ISO 8601). */
  time: field(),
  /** True when the key lives in Parley's TEE simulator: such a receipt proves nothing about hardware. */
  simulator: z.boolean(),
  agent: receiptAgentSchema,
  reply: receiptReplySchema.optional(),
  tombstone: receiptTombstoneSchema.optional(),
});

/** A signed receipt: the body, its digest, and the agent's ECDSA secp256k1 signature of that digest. */
export const receiptSchema = z.strictObject({
  body: receiptBodySchema,
  /** The body's digest (hex); a verifier recomputes it. */
  hash: digestSchema,
  /** Compact (r || s, low-S) ECDSA secp256k1 signature of the digest, 128 hex digits. */
  signature: z.string().regex(/^[0-9a-f]{128}$/, 'a 64-byte compact signature in lower-case hex'),
});

/**
 * A receipt with what checks it offline: the agent's TEE registration (its quote binds the key) and the event log
 * the TEE served (which app runs). `parley-tee verify-receipt FILE` reads this.
 */
export const receiptBundleSchema = z.object({
  receipt: receiptSchema,
  attestation: teeAgentSchema.optional(),
  eventLog: z.array(teeEventSchema).optional(),
});

/** `data` of `GET /api/messaging/channels/{id}/receipts`: a page of receipts in chain order, and the cursor. */
export const receiptPageSchema = z.object({
  receipts: z.array(receiptSchema),
  /** The agents' registrations the page's receipts name (one per key). */
  attestations: z.array(teeAgentSchema),
  eventLog: z.array(teeEventSchema).optional(),
  /** Pass as `?after=` for the next page; null at the end. */
  nextCursor: z.string().nullable(),
});

/** Query of `GET /api/messaging/channels/{id}/receipts`: the cursor (`nextCursor` of the last page) and a size. */
export const receiptPageQuerySchema = z.strictObject({
  after: z
    .string()
    .regex(/^[1-9][0-9]{0,17}$/, 'a cursor from nextCursor')
    .optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

/** @see receiptToolCallSchema */
export type ReceiptToolCall = z.infer<typeof receiptToolCallSchema>;
/** @see receiptApprovalSchema */
export type ReceiptApproval = z.infer<typeof receiptApprovalSchema>;
/** @see receiptAgentSchema */
export type ReceiptAgent = z.infer<typeof receiptAgentSchema>;
/** @see receiptReplySchema */
export type ReceiptReply = z.infer<typeof receiptReplySchema>;
/** @see receiptTombstoneSchema */
export type ReceiptTombstone = z.infer<typeof receiptTombstoneSchema>;
/** @see receiptBodySchema */
export type ReceiptBody = z.infer<typeof receiptBodySchema>;
/** @see receiptSchema */
export type Receipt = z.infer<typeof receiptSchema>;
/** @see receiptBundleSchema */
export type ReceiptBundle = z.infer<typeof receiptBundleSchema>;
/** @see receiptPageSchema */
export type ReceiptPage = z.infer<typeof receiptPageSchema>;
