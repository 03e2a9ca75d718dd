import { monitorEventLoopDelay } from 'node:perf_hooks';
import { defineAction } from '@parley/plugin-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopServer, type LoopFixture } from '../../test/agent-loop-fixture';
import { createOpenAICompatibleModel } from '../models';
import { toSseEvents } from '../models/testing/chat-completion-bodies';
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../models/testing/fake-openai-server';

type Script = (body: Record<string, unknown>) => readonly string[];

/** The last message a request to the upstream carries, as text. */
const lastContent = (body: Record<string, unknown>): string => {
  const content = (body.messages as { content: unknown }[]).at(-1)?.content;
  return typeof content === 'string' ? content : JSON.stringify(content ?? '');
};

/** The longest the event loop stood still while `work` ran, in ms. */
async function stallDuring<T>(work: () => Promise<T>): Promise<{ result: T; stallMs: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  try {
    const result = await work();
    return { result, stallMs: histogram.max / 1e6 };
  } finally {
    histogram.disable();
  }
}

/**
 * A model without tool calling (`MODEL_TOOLS=false`) behind a real OpenAI-compatible HTTP server, answering in
 * elizaOS's XML protocol with markup built to make a parser rescan: the answer is read in linear time, a probe is
 * served while the reply runs, and the reply completes (never a 502 that blames the model service).
 */
describe('model output in the XML protocol, from a hostile model', () => {
  let upstream: FakeOpenAIServer;
  let loop: LoopFixture;
  let script: Script = () => toSseEvents('Hello.', 64);
  const echoed: unknown[] = [];

  beforeAll(async () => {
    upstream = await startFakeOpenAIServer({ events: (body) => script(body) });
    loop = await startLoopServer(
      () => [
        defineAction({
          name: 'ECHO',
          description: 'echoes a word',
          parameters: {
            type: 'object',
            properties: { word: { type: 'string' } },
            required: ['word'],
          },
          handler: (_runtime, _message, _state, options) => {
            echoed.push(options?.parameters);
            return { success: true, text: `echo ${String(options?.parameters?.word)}` };
          },
        }),
      ],
      {
        model: createOpenAICompatibleModel({
          baseUrl: upstream.url,
          model: 'fake',
          callsTools: false,
        }),
      },
    );
  });
  afterAll(async () => {
    await loop.test[Symbol.asyncDispose]();
    await upstream.close();
  });

  /** Answers `first` to the user's message, then says the action's result. */
  const answering = (first: string): Script => {
    return (body) =>
      lastContent(body).startsWith('[Result of action')
        ? toSseEvents(
            `<response><actions>REPLY</actions><text>Done: ${lastContent(body)}</text></response>`,
            64,
          )
        : toSseEvents(first, 4096);
  };

  it('300 KB of <params> with 100,000 unclosed tags: no stall, a probe is served, the reply completes', async () => {
    const answer = `<response><thought>x</thought><actions>ECHO</actions><params>${'<x>'.repeat(100_000)}</params><text></text></response>`;
    expect(answer.length).toBeGreaterThan(300_000);
    script = answering(answer);
    const channelId = loop.channel();
    const { result, stallMs } = await stallDuring(async () => {
      const reply = loop.send(channelId, { text: 'echo', mode: 'sync' });
      const probe = fetch(`${loop.test.url}/api/server/health`).then((response) => response.status);
      return Promise.all([reply, probe]);
    });
    const [response, probeStatus] = result;
    expect(probeStatus).toBe(200);
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      agentResponse: { text: string; toolCalls: { toolName: string; error?: string }[] };
    };
    // No arguments could be read: the call fails its schema, the model is told, and it answers.
    expect(body.agentResponse.toolCalls).toEqual([
      expect.objectContaining({ toolName: 'ECHO', error: expect.stringMatching(/word/) }),
    ]);
    expect(body.agentResponse.text).toMatch(/^Done: \[Result of action ECHO\]/);
    expect(stallMs).toBeLessThan(2_000);
  });

  it('well-formed <params> next to the same flood still reach the action', async () => {
    echoed.length = 0;
    script = answering(
      `<response><actions>ECHO</actions><params><ECHO><word>hi</word></ECHO>${'<x>'.repeat(100_000)}</params></response>`,
    );
    const { result, stallMs } = await stallDuring(() => loop.sync(loop.channel(), 'echo'));
    expect(echoed).toEqual([{ word: 'hi' }]);
    expect(result.agentResponse.text).toBe('Done: [Result of action ECHO]: echo hi');
    expect(stallMs).toBeLessThan(2_000);
  });
});
