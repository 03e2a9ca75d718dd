import { ParleyError } from '@parley/core';
import { requestPerson } from '../identity/channel-access';
import type { Context } from 'hono';
import type { AppEnv } from '../http/app-env';
import { idempotencyKey } from '../http/idempotency-key';
import { createSseStream } from '../http/sse-stream';
import type { MessagingService } from '../messaging/messaging-service';
import {
  CHANNEL_HEADER,
  REPLY_HEADER,
  type OpenAIFaceContext,
  type TokenUsage,
  channelFromHeader,
  startConversation,
  streamAnswer,
  usageOf,
  wholeContent,
} from './openai-conversation';
import { openAIError, toOpenAIErrorBody } from './openai-errors';
import { type ResponsesRequest, readMessages } from './openai-schemas';

const hex = (uuid: string) => uuid.replaceAll('-', '');

/** A response's id: its reply's id, so that `previous_response_id` names the reply and with it the channel. */
export const responseId = (replyId: string): string => `resp_${hex(replyId)}`;

/** The reply a response id names, or undefined when it is not one. */
export function replyOfResponse(id: string): string | undefined {
  const match = /^resp_([0-9a-f]{32})$/i.exec(id);
  if (!match) return undefined;
  const h = match[1]!.toLowerCase();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The channel of the response `previous_response_id` names: its reply's; 404 when there is no such reply. */
async function channelOfResponse(
  messaging: MessagingService,
  previous: string,
  signal: AbortSignal,
): Promise<string> {
  const replyId = replyOfResponse(previous);
  const notFound = () =>
    openAIError(
      'NOT_FOUND',
      `Previous response with id '${previous.slice(0, 64)}' not found.`,
      'previous_response_id',
      'previous_response_not_found',
    );
  if (!replyId) throw notFound();
  try {
    return (await messaging.openReply(replyId, undefined, signal)).channelId;
  } catch (error) {
    if (ParleyError.isInstance(error) && error.code === 'NOT_FOUND') throw notFound();
    throw error;
  }
}

/** What a response object says besides its output. */
interface ResponseFacts {
  id: string;
  createdAt: number;
  model: string;
  previous: string | null;
  instructions: string | null;
  metadata: Record<string, string>;
}

/** The response object, `in_progress` (no output yet), `completed`, or `failed` with its error. */
function responseObject(
  facts: ResponseFacts,
  status: 'in_progress' | 'completed' | 'failed',
  output?: { text: string; usage: TokenUsage },
  error?: { code: string; message: string },
) {
  const item = output && {
    type: 'message',
    id: `msg_${facts.id.slice('resp_'.length)}`,
    status: 'completed',
    role: 'assistant',
    content: [{ type: 'output_text', text: output.text, annotations: [] }],
  };
  return {
    id: facts.id,
    object: 'response',
    created_at: facts.createdAt,
    status,
    model: facts.model,
    output: item ? [item] : [],
    output_text: output?.text ?? '',
    usage: output
      ? {
          input_tokens: output.usage.input,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: output.usage.output,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: output.usage.input + output.usage.output,
        }
      : null,
    error: error ?? null,
    incomplete_details: null,
    previous_response_id: facts.previous,
    instructions: facts.instructions,
    metadata: facts.metadata,
    parallel_tool_calls: false,
    tool_choice: 'auto',
    tools: [],
    temperature: null,
    top_p: null,
    text: { format: { type: 'text' } },
    truncation: 'disabled',
    store: true,
  };
}

/**
 * `POST /v1/responses`: `input` (a string, or message items whose last is the user's) is posted as the agent's
 * conversation, continuing the channel of `previous_response_id` when given, and the reply is answered as a
 * response object, or streamed as `response.created`, `response.output_text.delta`…, `response.completed`.
 * `instructions` are kept with the message, not given to the model (the agent's character is its system
 * prompt). Closing the connection cancels the reply.
 */
export async function createResponse(
  c: Context<AppEnv>,
  context: OpenAIFaceContext,
  body: ResponsesRequest,
): Promise<Response> {
  const { text, earlier } =
    typeof body.input === 'string'
      ? { text: body.input, earlier: [] }
      : readMessages(body.input, 'input');
  const stream = body.stream === true;
  const previous = body.previous_response_id ?? undefined;
  const channelId = previous
    ? await channelOfResponse(context.messaging, previous, c.req.raw.signal)
    : channelFromHeader(c.req.header(CHANNEL_HEADER));
  const kept = {
    ...(body.metadata ? { metadata: body.metadata } : {}),
    ...(body.instructions ? { instructions: body.instructions } : {}),
  };
  const started = await startConversation(context, {
    model: body.model,
    text,
    earlier,
    channelId,
    conversation: body.metadata?.conversation_id ?? body.user ?? undefined,
    user: body.user ?? undefined,
    idempotencyKey: idempotencyKey(c),
    metadata: Object.keys(kept).length > 0 ? { openai: kept } : {},
    delivery: stream ? 'openai-responses-stream' : 'openai-responses',
    person: requestPerson(c),
  });
  const { reply, agent } = started;
  const facts: ResponseFacts = {
    id: responseId(reply.replyId),
    createdAt: Math.floor(Date.now() / 1000),
    model: agent.agentId,
    previous: previous ?? null,
    instructions: body.instructions ?? null,
    metadata: body.metadata ?? {},
  };
  const headers = { [CHANNEL_HEADER]: started.channelId, [REPLY_HEADER]: reply.replyId };

  if (!stream) {
    const content = await wholeContent(context, reply, c.req.raw.signal);
    const output = { text: content, usage: usageOf(reply, text, content) };
    return c.json(responseObject(facts, 'completed', output), 200, headers);
  }

  const sse = createSseStream(context.sseKeepAliveMs);
  for (const [name, value] of Object.entries(headers)) sse.response.headers.set(name, value);
  let sequence = 0;
  const send = (type: string, data: object) =>
    sse.send(type, { type, sequence_number: sequence++, ...data });
  const itemId = `msg_${facts.id.slice('resp_'.length)}`;
  const at = { item_id: itemId, output_index: 0, content_index: 0 };
  const emptyItem = {
    type: 'message',
    id: itemId,
    status: 'in_progress',
    role: 'assistant',
    content: [],
  };
  send('response.created', { response: responseObject(facts, 'in_progress') });
  send('response.in_progress', { response: responseObject(facts, 'in_progress') });
  send('response.output_item.added', { output_index: 0, item: emptyItem });
  send('response.content_part.added', {
    ...at,
    part: { type: 'output_text', text: '', annotations: [] },
  });
  const finish = (content: string) => {
    const part = { type: 'output_text', text: content, annotations: [] };
    send('response.output_text.done', { ...at, text: content, logprobs: [] });
    send('response.content_part.done', { ...at, part });
    send('response.output_item.done', {
      output_index: 0,
      item: { ...emptyItem, status: 'completed', content: [part] },
    });
    const output = { text: content, usage: usageOf(reply, text, content) };
    send('response.completed', { response: responseObject(facts, 'completed', output) });
  };
  streamAnswer(context, reply, sse, {
    text: (piece) => send('response.output_text.delta', { ...at, delta: piece, logprobs: [] }),
    error: (final) => {
      const { error } = toOpenAIErrorBody(new ParleyError(final.code, final.message));
      const failure = { code: error.code ?? 'server_error', message: error.message };
      send('response.failed', { response: responseObject(facts, 'failed', undefined, failure) });
    },
    'reply-end': (_end, content) => finish(content),
    'reply-pause': (_pause, content) => finish(content),
  });
  return sse.response;
}
