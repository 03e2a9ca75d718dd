import { ParleyError } from '@parley/core';
import { z } from 'zod';

/**
 * The request body the AI SDK's `DefaultChatTransport` sends (`useChat`): the chat's id, its messages as the UI
 * holds them, and why it sends. Parley reads the last message only (the chat's channel holds the rest); the
 * other fields the transport or the page adds are accepted and ignored.
 */

/** A part of a UI message: its type is read; what else it holds is read where a part type needs it. */
const uiPartSchema = z.looseObject({ type: z.string().min(1).max(128) });

const uiMessageSchema = z.looseObject({
  id: z.string().max(256),
  role: z.enum(['system', 'user', 'assistant']),
  parts: z.array(uiPartSchema).max(1000),
});

export const uiChatRequestSchema = z.looseObject({
  /** The chat's id: it names the channel the conversation is held in. */
  id: z.string().trim().min(1).max(256),
  messages: z.array(uiMessageSchema).min(1).max(1000),
  trigger: z.enum(['submit-message', 'regenerate-message']).optional(),
  messageId: z.string().max(256).optional(),
});

export type UIChatRequest = z.infer<typeof uiChatRequestSchema>;
export type UIChatMessage = UIChatRequest['messages'][number];

/** A tool part the person answered (AI SDK 6's tool approval flow: `addToolApprovalResponse`). */
const approvalResponseSchema = z.looseObject({
  type: z.string().regex(/^(tool-.+|dynamic-tool)$/),
  state: z.literal('approval-responded'),
  toolCallId: z.string().min(1).max(256),
  approval: z.looseObject({
    id: z.string().max(256),
    approved: z.boolean(),
    reason: z.string().max(2000).optional(),
  }),
});

/** A decision the UI sends for one call of a paused reply. */
export interface ApprovalAnswer {
  toolCallId: string;
  approved: boolean;
  reason?: string;
}

/** The decisions an assistant message carries: its tool parts in the `approval-responded` state. */
export function approvalAnswers(message: UIChatMessage): ApprovalAnswer[] {
  const answers: ApprovalAnswer[] = [];
  for (const [index, part] of message.parts.entries()) {
    if (part['state'] !== 'approval-responded') continue;
    const parsed = approvalResponseSchema.safeParse(part);
    if (!parsed.success) {
      throw new ParleyError(
        'BAD_REQUEST',
        `messages[-1].parts.${index}: an approval response needs toolCallId and approval.approved`,
      );
    }
    answers.push({
      toolCallId: parsed.data.toolCallId,
      approved: parsed.data.approval.approved,
      reason: parsed.data.approval.reason,
    });
  }
  return answers;
}

/** The text of a user message: its text parts, joined; files and other parts are not read. */
export function userText(message: UIChatMessage): string {
  return message.parts
    .filter((part) => part.type === 'text' && typeof part['text'] === 'string')
    .map((part) => part['text'] as string)
    .join('\n');
}
