import type { ErrorCode } from '@parley/core';
import { z } from 'zod';
import { jsonSchemaOf } from '../json-schema-of';
import { OPENAI_PATH } from '../../openai/openai-errors';
import { chatCompletionRequestSchema, responsesRequestSchema } from '../../openai/openai-schemas';
import type { DocumentedOperation } from './built-in-operations';
import { errorResponsesIn } from './error-responses';

/** OpenAI's error body, which every answer under `/v1` that is not a success carries. */
const openAIErrorSchema = z.object({
  error: z.object({
    message: z.string(),
    type: z.string().describe('`invalid_request_error`, `rate_limit_error` or `server_error`'),
    param: z.string().nullable().describe('The field or header at fault, when one is'),
    code: z
      .string()
      .nullable()
      .describe(
        '`model_not_found`, `invalid_api_key`, `rate_limit_exceeded`, `previous_response_not_found`…',
      ),
  }),
});

const modelSchema = z.object({
  id: z.string().describe("The agent's id"),
  object: z.literal('model'),
  created: z.number().int(),
  owned_by: z.literal('parley'),
  name: z.string().describe("The agent's name (also accepted as `model`)"),
});

const usageSchema = z.object({
  prompt_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  total_tokens: z.number().int(),
});

const chatCompletionSchema = z.object({
  id: z.string().describe('`chatcmpl-<replyId>`'),
  object: z.literal('chat.completion'),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(
    z.object({
      index: z.number().int(),
      message: z.object({ role: z.literal('assistant'), content: z.string(), refusal: z.null() }),
      logprobs: z.null(),
      finish_reason: z.literal('stop'),
    }),
  ),
  usage: usageSchema,
});

const responseSchema = z.looseObject({
  id: z
    .string()
    .describe('`resp_<replyId without dashes>`: `previous_response_id` continues its channel'),
  object: z.literal('response'),
  created_at: z.number().int(),
  status: z.enum(['completed', 'in_progress', 'failed']),
  model: z.string(),
  output: z.array(
    z.object({
      type: z.literal('message'),
      id: z.string(),
      status: z.string(),
      role: z.literal('assistant'),
      content: z.array(z.object({ type: z.literal('output_text'), text: z.string() })),
    }),
  ),
  output_text: z.string(),
  usage: z
    .object({
      input_tokens: z.number().int(),
      output_tokens: z.number().int(),
      total_tokens: z.number().int(),
    })
    .nullable(),
  previous_response_id: z.string().nullable(),
});

const CHANNEL_HEADER_DOC = {
  'X-Parley-Channel-Id': z
    .string()
    .describe(
      'The channel to hold the conversation in (a UUID). Without it: the channel of `metadata.conversation_id`, ' +
        'else of `user` (one per agent and name), else a new one. Every answer tells the channel in this ' +
        'header and the reply in `X-Parley-Reply-Id`.',
    ),
  'Idempotency-Key': z
    .string()
    .min(1)
    .max(255)
    .describe(
      'Makes a retry safe: the same key and request answer the first reply and post nothing twice.',
    ),
};

/** The failures of a conversation through `/v1`, besides the guards'. */
const CONVERSATION_ERRORS: readonly ErrorCode[] = [
  'BAD_REQUEST',
  'NOT_FOUND',
  'CONFLICT',
  'CANCELLED',
  'CHANNEL_BUSY',
  'MODEL_ERROR',
  'UNAVAILABLE',
  'TIMEOUT',
];

const STREAM_NOTE =
  'With `stream: true`, server-sent events; closing the connection cancels the reply (nothing of it is stored).';

/** `/v1`, the agents as OpenAI models, as the documents describe it. */
export const OPENAI_OPERATIONS: readonly DocumentedOperation[] = [
  {
    method: 'get',
    path: `${OPENAI_PATH}/models`,
    operationId: 'listOpenAIModels',
    summary: 'OpenAI: the agents as models',
    description:
      'Every running agent, by id. The token may come as `Authorization: Bearer` (the API key).',
    tag: 'openai',
    auth: ['apiKey', 'bearer'],
    responses: {
      200: {
        description: 'The models.',
        json: z.object({ object: z.literal('list'), data: z.array(modelSchema) }),
      },
    },
    errors: [],
  },
  {
    method: 'get',
    path: `${OPENAI_PATH}/models/:model`,
    operationId: 'getOpenAIModel',
    summary: 'OpenAI: one agent as a model, by id or name',
    tag: 'openai',
    auth: ['apiKey', 'bearer'],
    pathParams: { model: z.string().describe("An agent's id or name") },
    responses: { 200: { description: 'The model.', json: modelSchema } },
    errors: ['NOT_FOUND'],
  },
  {
    method: 'post',
    path: `${OPENAI_PATH}/chat/completions`,
    operationId: 'createOpenAIChatCompletion',
    summary: 'OpenAI: chat completions, answered by the agent named by `model`',
    description:
      'The last message (the user’s) is posted to the agent’s channel and its reply answered; a new channel is ' +
      'first seeded with the earlier user and assistant turns (20 at most). System messages, `temperature` and ' +
      'other sampling fields are not given to the model: the agent’s character and settings decide. The ' +
      'agent’s tools run on the server and show in the text as `[tool NAME(input) → outcome]`. Usage is what ' +
      'the model reported, summed over the reply’s steps (else a quarter of the characters). ' +
      `${STREAM_NOTE} Streamed: \`chat.completion.chunk\` events, a usage chunk with ` +
      '`stream_options.include_usage`, then `data: [DONE]`; a failure after the first chunk is a `data: {error}` event.',
    tag: 'openai',
    auth: ['apiKey', 'bearer'],
    headers: CHANNEL_HEADER_DOC,
    body: chatCompletionRequestSchema,
    responses: {
      200: {
        description: 'The completion, or its chunks as server-sent events.',
        json: chatCompletionSchema,
        text: 'text/event-stream',
      },
    },
    errors: CONVERSATION_ERRORS,
  },
  {
    method: 'post',
    path: `${OPENAI_PATH}/responses`,
    operationId: 'createOpenAIResponse',
    summary: 'OpenAI: the Responses API, answered by the agent named by `model`',
    description:
      '`input` (a string or message items) is posted as the chat completions’ messages are; ' +
      '`previous_response_id` continues that response’s channel; `instructions` are kept with the message, ' +
      `not given to the model. ${STREAM_NOTE} Streamed: \`response.created\`, \`response.in_progress\`, ` +
      '`response.output_item.added`, `response.content_part.added`, `response.output_text.delta`…, ' +
      '`response.output_text.done`, `response.content_part.done`, `response.output_item.done`, ' +
      '`response.completed` (with usage), or `response.failed`.',
    tag: 'openai',
    auth: ['apiKey', 'bearer'],
    headers: CHANNEL_HEADER_DOC,
    body: responsesRequestSchema,
    responses: {
      200: {
        description: 'The response, or its events as server-sent events.',
        json: responseSchema,
        text: 'text/event-stream',
      },
    },
    errors: CONVERSATION_ERRORS,
  },
];

/** The name of OpenAI's error body in `components.schemas`. */
export const OPENAI_ERROR_SCHEMA_NAME = 'OpenAIError';

/** The `components.schemas` entry of OpenAI's error body. */
export const openAIErrorComponent = () => jsonSchemaOf(openAIErrorSchema, 'output');

/** The `Retry-After` header of 429 and 503 answers, as under `/api`. */
const RETRY_AFTER = {
  'Retry-After': {
    description:
      'Seconds to wait before retrying (the rate limit, an unavailable database or server).',
    required: false,
    schema: { type: 'integer', minimum: 0 },
  },
};

/** Error responses of a `/v1` operation, keyed by status, in OpenAI's shape. */
export function openAIErrorResponses(codes: readonly ErrorCode[]): Record<string, unknown> {
  return errorResponsesIn(codes, {
    schemaName: OPENAI_ERROR_SCHEMA_NAME,
    describe: (sharing) =>
      `OpenAI's error body; Parley's ${sharing.map((code) => `\`${code}\``).join(', ')}.`,
    retryAfter: RETRY_AFTER,
  });
}
