import { ParleyError } from '@parley/core';
import { requestPerson } from '../identity/channel-access';
import type { Context } from 'hono';
import type { AppEnv } from '../http/app-env';
import { idempotencyKey } from '../http/idempotency-key';
import { createSseStream } from '../http/sse-stream';
import {
  CHANNEL_HEADER,
  REPLY_HEADER,
  type OpenAIFaceContext,
  channelFromHeader,
  startConversation,
  streamAnswer,
  usageOf,
  wholeContent,
} from './openai-conversation';
import { toOpenAIErrorBody } from './openai-errors';
import { type ChatCompletionRequest, readMessages } from './openai-schemas';

/** A chat completion's id: the reply's, so the two can be matched. */
export const completionId = (replyId: string): string => `chatcmpl-${replyId}`;

/**
 * The `finish_reason` of every answer: a reply that ended (or paused for approvals) said what it had to say.
 * Its tool calls ran on the server, so it is never `tool_calls`, which would ask the client to run them.
 */
const FINISH_REASON = 'stop';

const usageBody = (usage: { input: number; output: number }) => ({
  prompt_tokens: usage.input,
  completion_tokens: usage.output,
  total_tokens: usage.input + usage.output,
});

/**
 * `POST /v1/chat/completions`: the last user message is posted as the agent's conversation (see
 * `startConversation`) and the reply is answered as a `chat.completion`, or streamed as `chat.completion.chunk`
 * events ending in `data: [DONE]` (with a usage chunk first when `stream_options.include_usage`). Closing the
 * connection cancels the reply.
 */
export async function chatCompletions(
  c: Context<AppEnv>,
  context: OpenAIFaceContext,
  body: ChatCompletionRequest,
): Promise<Response> {
  const { text, earlier } = readMessages(body.messages, 'messages');
  const stream = body.stream === true;
  const conversation = body.metadata?.conversation_id ?? body.user ?? undefined;
  const { agent, reply, channelId } = await startConversation(context, {
    model: body.model,
    text,
    earlier,
    channelId: channelFromHeader(c.req.header(CHANNEL_HEADER)),
    conversation,
    user: body.user ?? undefined,
    idempotencyKey: idempotencyKey(c),
    metadata: body.metadata ? { openai: { metadata: body.metadata } } : {},
    delivery: stream ? 'openai-chat-stream' : 'openai-chat',
    person: requestPerson(c),
  });
  const id = completionId(reply.replyId);
  const created = Math.floor(Date.now() / 1000);
  const model = agent.agentId;
  const headers = { [CHANNEL_HEADER]: channelId, [REPLY_HEADER]: reply.replyId };

  if (!stream) {
    const content = await wholeContent(context, reply, c.req.raw.signal);
    return c.json(
      {
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content, refusal: null },
            logprobs: null,
            finish_reason: FINISH_REASON,
          },
        ],
        usage: usageBody(usageOf(reply, text, content)),
      },
      200,
      headers,
    );
  }

  const sse = createSseStream(context.sseKeepAliveMs);
  for (const [name, value] of Object.entries(headers)) sse.response.headers.set(name, value);
  const chunk = (delta: object, finish: string | null) => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
  const includeUsage = body.stream_options?.include_usage === true;
  sse.sendData(chunk({ role: 'assistant', content: '' }, null));
  const finish = (content: string) => {
    sse.sendData(chunk({}, FINISH_REASON));
    if (includeUsage) {
      sse.sendData({
        id,
        object: 'chat.completion.chunk',
        created,
        model,
        choices: [],
        usage: usageBody(usageOf(reply, text, content)),
      });
    }
    sse.sendData('[DONE]');
  };
  streamAnswer(context, reply, sse, {
    text: (piece) => sse.sendData(chunk({ content: piece }, null)),
    // The answer has begun: the failure goes as OpenAI's streamed error, which its clients raise.
    error: (final) => sse.sendData(toOpenAIErrorBody(new ParleyError(final.code, final.message))),
    'reply-end': (_end, content) => finish(content),
    'reply-pause': (_pause, content) => finish(content),
  });
  return sse.response;
}
