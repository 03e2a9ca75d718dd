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
