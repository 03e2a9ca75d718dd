// The chat-completions wire format, as the fake upstream server writes it.

function toSseEvent(content: string, first: boolean): string {
  const delta = first ? { role: 'assistant', content } : { content };
  const chunk = {
    id: 'chatcmpl-fake',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'fake-model',
    choices: [{ index: 0, delta, finish_reason: null }],
  };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

const FINAL_EVENTS =
  `data: ${JSON.stringify({
    id: 'chatcmpl-fake',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'fake-model',
    choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
  })}\n\n` + 'data: [DONE]\n\n';

/** The reply as server-sent events: one per chunk, then the stop chunk and `[DONE]`. */
export function toSseEvents(reply: string, chunkSize: number): string[] {
  const events: string[] = [];
  for (let start = 0; start < reply.length || start === 0; start += chunkSize) {
    events.push(toSseEvent(reply.slice(start, start + chunkSize), start === 0));
  }
  events.push(FINAL_EVENTS);
  return events;
}

/** The reply as a non-streaming `chat.completion` body. */
export function toCompletionBody(reply: string): string {
  return JSON.stringify({
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: 0,
    model: 'fake-model',
    choices: [{ index: 0, message: { role: 'assistant', content: reply }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
  });
}

/** The fields of one `chat.completion.chunk` a script sets; the envelope (`id`, `object`, …) is added. */
export interface ScriptedChunk {
  choices: unknown[];
  usage?: unknown;
  [field: string]: unknown;
}

/** One `data:` event carrying a `chat.completion.chunk` with the given choices (and usage, if any). */
export function toChunkEvent(chunk: ScriptedChunk): string {
  return `data: ${JSON.stringify({
    id: 'chatcmpl-fake',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'fake-model',
    ...chunk,
  })}\n\n`;
}

/** The event that ends a stream. */
export const DONE_EVENT = 'data: [DONE]\n\n';

/** A tool call for {@link toToolCallEvents}: `arguments` is the JSON text the model writes. */
export interface ScriptedToolCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * A step that calls tools, in OpenAI's streamed shape: optional text first, then for each call a delta with its
 * `index`, `id`, name and empty arguments followed by its arguments in two fragments, the `tool_calls` finish
 * chunk, a usage chunk (`choices: []`) and `[DONE]`. For tests of an agent loop against a real HTTP upstream.
 */
export function toToolCallEvents(
  calls: readonly ScriptedToolCall[],
  options: { text?: string; usage?: { prompt_tokens: number; completion_tokens: number } } = {},
): string[] {
  const events: string[] = [];
  const delta = (value: Record<string, unknown>) =>
    toChunkEvent({ choices: [{ index: 0, delta: value, finish_reason: null }] });
  events.push(delta({ role: 'assistant', content: options.text ?? null }));
  calls.forEach((call, index) => {
    events.push(
      delta({
        tool_calls: [
          { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } },
        ],
      }),
    );
    const half = call.arguments.length >> 1;
    for (const fragment of [call.arguments.slice(0, half), call.arguments.slice(half)]) {
      events.push(delta({ tool_calls: [{ index, function: { arguments: fragment } }] }));
    }
  });
  events.push(toChunkEvent({ choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] }));
  if (options.usage) events.push(toChunkEvent({ choices: [], usage: options.usage }));
  events.push(DONE_EVENT);
  return events;
}
