import { z } from 'zod';
import { storableString } from './common';
import { toolCallIdSchema, toolJsonSchema, toolNameSchema } from './tool-calls';

/** Longest reason a person may give with a decision, in characters. */
export const MAX_APPROVAL_REASON_LENGTH = 2000;

/**
 * An action call waiting for a person's decision: the reply pauses until every request of its step is approved,
 * denied or expired. What the `approval_request` stream event carries, and each entry of a paused reply's list.
 */
export const approvalRequestSchema = z.object({
  replyId: z.string(),
  toolCallId: toolCallIdSchema,
  toolName: toolNameSchema,
  input: toolJsonSchema,
  /** When the request expires (ISO 8601): the call is then refused and the model told so. */
  expiresAt: z.string(),
});

/** @see approvalRequestSchema */
export type ApprovalRequest = z.infer<typeof approvalRequestSchema>;

/** Body of `POST /api/messaging/replies/{replyId}/approvals`: one call's decision. */
export const approvalDecisionSchema = z.strictObject({
  toolCallId: toolCallIdSchema,
  approved: z.boolean(),
  /** Why, in a person's words: a denial's reason reaches the model with the refusal. */
  reason: storableString().max(MAX_APPROVAL_REASON_LENGTH).optional(),
});

/** @see approvalDecisionSchema */
export type ApprovalDecisionInput = z.input<typeof approvalDecisionSchema>;

/** `data` of the 202 answer of a decision: taken once; the reply goes on when its step's calls are all decided. */
export const approvalDecidedSchema = z.object({
  replyId: z.string(),
  toolCallId: z.string(),
  status: z.enum(['approved', 'denied']),
});

/** @see approvalDecidedSchema */
export type ApprovalDecided = z.infer<typeof approvalDecidedSchema>;
