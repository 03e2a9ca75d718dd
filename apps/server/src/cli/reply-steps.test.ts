import { randomUUID } from 'node:crypto';
import { defineAction, definePlugin } from '@parley/plugin-sdk';
import { createLogger, createServer, type ModelProvider } from '@parley/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runReplySteps } from './reply-steps';

/** A model that calls GET_WEATHER(Paris) and MADE_UP first, then answers from the results. */
const model: ModelProvider = {
  name: 'scripted',
  callsTools: true,
  async *stream(request) {
    await Promise.resolve();
    if (!request.messages.some((message) => message.role === 'tool')) {
      yield {
        type: 'tool-call',
        toolCallId: 'call_1',
        toolName: 'GET_WEATHER',
        input: '{"city":"Paris"}',
      };
      yield { type: 'tool-call', toolCallId: 'call_2', toolName: 'MADE_UP', input: '{}' };
      yield { type: 'finish', finishReason: 'tool-calls' };
      return;
    }
    yield { type: 'text-delta', delta: 'It is sunny in Paris.' };
  },
};

const weather = defineAction<{ city: string }>({
  name: 'GET_WEATHER',
  description: 'The weather in a city',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
  },
  handler: (_runtime, _message, _state, options) => ({
    success: true,
    text: `Sunny in ${options?.parameters?.city}`,
  }),
});

let server: ReturnType<typeof createServer>;
let url: string;
beforeAll(async () => {
  server = createServer({
    port: 0,
    env: {},
    logger: createLogger('silent'),
    database: { kind: 'pglite', dataDir: 'memory' },
    model,
    plugins: [definePlugin({ name: 'steps-test', actions: [weather] })],
  });
  ({ url } = await server.start());
}, 60_000);
afterAll(() => server.stop());

describe('parley reply', { timeout: 60_000 }, () => {
  it('prints a stored reply’s model steps, tool calls, outcomes and errors', async () => {
    const response = await fetch(`${url}/api/messaging/channels/${randomUUID()}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ entityId: 'user-1', text: 'Weather in Paris?', mode: 'sync' }),
    });
    const { replyId } = (await response.json()) as { replyId: string };
    let printed = '';
    const code = await runReplySteps([replyId, '--url', url], {}, (text) => (printed += text));
    expect(code).toBe(0);
    expect(printed).toContain(`reply ${replyId}`);
    expect(printed).toMatch(/step 0: model call → 2 tool call\(s\)/);
    expect(printed).toMatch(/GET_WEATHER \[call_1\] \{"city":"Paris"\}/);
    expect(printed).toContain('✓ {"text":"Sunny in Paris"');
    expect(printed).toMatch(/MADE_UP \[call_2\] \{\}\n\s+✗ error: /);
    expect(printed).toContain('step 1: model call → answer');
    expect(printed).toContain('It is sunny in Paris.');
    expect(printed).toContain('  done');
  });

  it('says what the server answered for an unknown reply, and refuses a bad id', async () => {
    let printed = '';
    expect(await runReplySteps([randomUUID(), `--url=${url}`], {}, (t) => (printed += t))).toBe(1);
    expect(printed).toContain('the server answered 404');
    expect(await runReplySteps(['not-an-id'], {}, () => undefined)).toBe(2);
  });
});
