import { storableString } from '@parley/core';
import { z } from 'zod';
import { openAIError } from './openai-errors';
import type { Turn } from './openai-conversation';

/**
 * The request bodies of `/v1`, as far as Parley reads them. Fields it does not use (`temperature`,
 * `max_tokens`, `seed`…) are accepted and ignored: the agent's own model settings decide; fields that would ask
 * for something it cannot do (`n` above 1, client-side `tools`) are refused by name.
 */

/** A content part: text is read, anything else is refused by name. */
const contentPartSchema = z.looseObject({ type: z.string().max(64), text: z.string().optional() });
const contentSchema = z.union([z.string(), z.array(contentPartSchema).max(1000)]).nullish();

const roleSchema = z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']);

const chatMessageSchema = z.looseObject({ role: roleSchema, content: contentSchema });

/** Free-form string pairs, as OpenAI allows them (16 at most, short). */
const metadataSchema = z
  .record(storableString().max(64), storableString().max(512))
  .refine((value) => Object.keys(value).length <= 16, 'must hold at most 16 keys');

// Text the database could not store (NUL, lone surrogates) is refused here, naming the field.
const modelSchema = storableString().trim().min(1).max(256);
const userSchema = storableString().max(256);

/** `POST /v1/chat/completions`. */
export const chatCompletionRequestSchema = z.looseObject({
  model: modelSchema,
  messages: z.array(chatMessageSchema).min(1).max(1000),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
  user: userSchema.nullish(),
  metadata: metadataSchema.nullish(),
  n: z.number().int().min(1).max(1).nullish(),
  tools: z
    .array(z.unknown())
    .max(0, 'client-side tools are not run here: the agent runs its own')
    .nullish(),
});
export type ChatCompletionRequest = z.output<typeof chatCompletionRequestSchema>;

const inputItemSchema = z.looseObject({
  type: z.string().max(64).optional(),
  role: roleSchema.optional(),
  content: contentSchema,
});

/** `POST /v1/responses`. */
export const responsesRequestSchema = z.looseObject({
  model: modelSchema,
  input: z.union([z.string(), z.array(inputItemSchema).min(1).max(1000)]),
  instructions: storableString().max(100_000).nullish(),
  previous_response_id: z.string().max(128).nullish(),
  stream: z.boolean().nullish(),
  user: userSchema.nullish(),
  metadata: metadataSchema.nullish(),
  tools: z
    .array(z.unknown())
    .max(0, 'client-side tools are not run here: the agent runs its own')
    .nullish(),
});
export type ResponsesRequest = z.output<typeof responsesRequestSchema>;

type Content = z.output<typeof contentSchema>;

/** The text of a message's content; a part that is not text is refused, naming it. */
export function textOf(content: Content, param: string): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  return content
    .map((part, index) => {
      if (
        ['text', 'input_text', 'output_text'].includes(part.type) &&
        typeof part.text === 'string'
      ) {
        return part.text;
      }
      throw openAIError(
        'BAD_REQUEST',
        `Only text content is supported; ${param}[${index}] is of type '${part.type}'`,
        `${param}[${index}]`,
      );
    })
    .join('');
}

/** A conversation's messages as the new user message and the turns before it. */
export interface ReadConversation {
  text: string;
  earlier: Turn[];
}

/**
 * Splits a list of messages into the last one, which must be the user's, and the user and assistant turns
 * before it (system and developer messages are not turns: the agent's character is its system prompt).
 */
export function readMessages(
  messages: readonly { role?: string | undefined; type?: string | undefined; content?: Content }[],
  param: string,
): ReadConversation {
  const last = messages.length - 1;
  const earlier: Turn[] = [];
  messages.forEach((message, index) => {
    if (message.type !== undefined && message.type !== 'message') {
      throw openAIError(
        'BAD_REQUEST',
        `Only message items are supported; ${param}[${index}] is of type '${message.type}'`,
        `${param}[${index}].type`,
      );
    }
    const { role } = message;
    if (index === last) {
      if (role !== 'user') {
        throw openAIError(
          'BAD_REQUEST',
          `The last message must be the user's; ${param}[${index}] has role '${String(role)}'`,
          `${param}[${index}].role`,
        );
      }
      return;
    }
    if (role === 'tool' || role === 'function') {
      throw openAIError(
        'BAD_REQUEST',
        `Tool results are not taken: the agent runs its own tools (${param}[${index}])`,
        `${param}[${index}].role`,
      );
    }
    if (role === 'user' || role === 'assistant') {
      earlier.push({ role, text: textOf(message.content, `${param}[${index}].content`) });
    } else {
      // System and developer messages are read as text (so a bad one is refused), not posted.
      textOf(message.content, `${param}[${index}].content`);
    }
  });
  return { text: textOf(messages[last]?.content, `${param}[${last}].content`), earlier };
}
