import {
  startFakeOpenAIServer,
  toSseEvents,
  toToolCallEvents,
  type FakeOpenAIServer,
} from '@parley/server/testing';

/** A streamed text answer, in two pieces. */
const textEvents = (text: string) => toSseEvents(text, Math.ceil(text.length / 2));

/** A chat message of a request, as the fake model reads it. */
interface ChatMessage {
  role: string;
  content: unknown;
}

/** A chat-completions request the fake model received. */
export interface ModelRequest {
  messages: ChatMessage[];
  tools?: { function: { name: string } }[];
}

/** When the user's text matches `pattern` and `tool` is offered, the model calls it. */
export type ToolRule = readonly [pattern: RegExp, tool: string];

/** A fake model for a conversation with tools, and the requests it received. */
export interface FakeToolModel {
  server: FakeOpenAIServer;
  requests: ModelRequest[];
}

function textOf(message: ChatMessage | undefined): string {
  return typeof message?.content === 'string' ? message.content : JSON.stringify(message?.content);
}

/**
 * Starts an OpenAI-compatible server that answers by looking at each request: after a tool result, text that
 * quotes it; with tools offered, a call of the first rule's tool whose pattern the user's text matches; without
 * tools, `answerPrompt(prompt)` when it answers (a plugin's `useModel`), else a plain sentence.
 */
export async function startFakeToolModel(
  rules: readonly ToolRule[],
  answerPrompt: (prompt: string) => string | undefined,
): Promise<FakeToolModel> {
  const requests: ModelRequest[] = [];
  let calls = 0;
  const server = await startFakeOpenAIServer({
    onRequest: ({ body }) => requests.push(body as ModelRequest),
    events: (body) => {
      const { messages, tools } = body as unknown as ModelRequest;
      const last = messages.at(-1);
      if (last?.role === 'tool') return textEvents(`The tool answered: ${textOf(last)}`);
      const text = textOf(last);
      if (!tools) return textEvents(answerPrompt(text) ?? 'I have nothing to add.');
      const offered = new Set(tools.map((tool) => tool.function.name));
      const rule = rules.find(([pattern, tool]) => pattern.test(text) && offered.has(tool));
      if (!rule) return textEvents('No tool fits that.');
      calls += 1;
      return toToolCallEvents([{ id: `call_fake_${calls}`, name: rule[1], arguments: '{}' }]);
    },
  });
  return { server, requests };
}
