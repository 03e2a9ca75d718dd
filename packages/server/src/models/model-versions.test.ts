import { randomUUID } from 'node:crypto';
import { ParleyError } from '@parley/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { parseSse } from '../../test/sse';
import { startTestServer } from '../../test/test-server';
import type { AgentProfile } from '../agents/agent-profile';
import { createReplyExtractor } from '../reply/loop/reply-extractor';
import { createReplyTelemetry } from '../tracing/reply-telemetry';
import { runModelStep } from '../reply/loop/model-step';
import type {
  ModelProvider,
  ModelProviderV1,
  ModelProviderV2,
  ModelRequest,
  ModelStreamPartV1,
  ModelStreamPartV2,
} from './model-provider';
import { createOpenAICompatibleModel } from './openai-compatible-model';
import { streamModel } from './stream-model';
import { startFakeOpenAIServer } from './testing/fake-openai-server';
import { VLLM_REASONING_CONTENT } from './testing/stream-shapes';

const request: ModelRequest = { agentName: 'Eliza', messages: [{ role: 'user', content: 'hi' }] };

async function partsOf(model: ModelProvider, asked = request): Promise<ModelStreamPartV2[]> {
  const parts: ModelStreamPartV2[] = [];
  for await (const part of streamModel(model, asked)) parts.push(part);
  return parts;
}

/** A model written before versions: no `specificationVersion`, failures thrown. */
function v1Model(
  parts: ModelStreamPartV1[],
  failure?: Error,
  signal?: AbortController,
): ModelProviderV1 {
  return {
    name: 'v1',
    callsTools: false,
    async *stream() {
      await Promise.resolve();
      for (const part of parts) yield part;
      signal?.abort(new Error('caller gone'));
      if (failure !== undefined) throw failure;
    },
  };
}

describe('streamModel reads a v1 model (no specificationVersion) as v2', () => {
  it('passes its text and calls, gives a finish without usage `usage: {}`', async () => {
    const call = { toolCallId: 'c1', toolName: 'LOOK', input: '{}' };
    expect(
      await partsOf(
        v1Model([
          { type: 'text-delta', delta: 'Hi' },
          { type: 'tool-call', ...call },
          { type: 'finish', finishReason: 'tool-calls' },
        ]),
      ),
    ).toEqual([
      { type: 'text-delta', delta: 'Hi' },
      { type: 'tool-call', ...call },
      { type: 'finish', finishReason: 'tool-calls', usage: {} },
    ]);
    const usage = { inputTokens: 3, outputTokens: 4 };
    expect(await partsOf(v1Model([{ type: 'finish', finishReason: 'stop', usage }]))).toEqual([
      { type: 'finish', finishReason: 'stop', usage },
    ]);
  });

  it('ends a stream without finish with `finish: stop`, as v1 defined it', async () => {
    expect(await partsOf(v1Model([{ type: 'text-delta', delta: 'Hi' }]))).toEqual([
      { type: 'text-delta', delta: 'Hi' },
      { type: 'finish', finishReason: 'stop', usage: {} },
    ]);
  });

  it('turns what it throws into an error part that ends the stream', async () => {
    const failure = new ParleyError('MODEL_ERROR', 'The model provider failed');
    expect(await partsOf(v1Model([{ type: 'text-delta', delta: 'Hal' }], failure))).toEqual([
      { type: 'text-delta', delta: 'Hal' },
      { type: 'error', error: failure },
    ]);
  });

  it('still throws once the request was aborted, as a v2 model throws on abort', async () => {
    const controller = new AbortController();
    const reason = new Error('caller gone');
    const model = v1Model([], reason, controller);
    await expect(partsOf(model, { ...request, signal: controller.signal })).rejects.toBe(reason);
  });

  it('returns a v2 model stream as it is, with no wrapper', () => {
    const stream: AsyncIterable<ModelStreamPartV2> = {
      [Symbol.asyncIterator]: () => ({
        next: () => Promise.resolve({ done: true, value: undefined }),
      }),
    };
    const model: ModelProviderV2 = {
      specificationVersion: 'v2',
      name: 'v2',
      callsTools: false,
      stream: () => stream,
    };
    expect(streamModel(model, request)).toBe(stream);
  });
});

/** A v2 model that reasons around its answer. */
const thinker: ModelProviderV2 = {
  specificationVersion: 'v2',
  name: 'thinker',
  callsTools: false,
  async *stream() {
    await Promise.resolve();
    yield { type: 'reasoning-delta', delta: 'They said hi; ' };
    yield { type: 'text-delta', delta: 'Hello!' };
    yield { type: 'reasoning-delta', delta: 'done.' };
    yield { type: 'finish', finishReason: 'stop', usage: { outputTokens: 7 } };
  },
};

describe('runModelStep', () => {
  it("keeps reasoning out of the step's text and counts it", async () => {
    const model = thinker;
    const said: string[] = [];
    const step = await runModelStep(model, request, createReplyExtractor(), (d) => said.push(d));
    expect(said.join('')).toBe('Hello!');
    expect(step.text).toBe('Hello!');
    expect(step.raw).toBe('Hello!');
    expect(step.reasoning).toBe('They said hi; done.');
    expect(step.reasoningLength).toBe('They said hi; done.'.length);
    expect(step.usage).toEqual({ outputTokens: 7 });
  });

  it('throws the error an error part carries, after the text before it', async () => {
    const failure = new ParleyError('TIMEOUT', 'The model did not answer within 5 ms');
    const model: ModelProviderV2 = {
      specificationVersion: 'v2',
      name: 'failing',
      callsTools: false,
      async *stream() {
        await Promise.resolve();
        yield { type: 'text-delta', delta: 'Half' };
        yield { type: 'error', error: failure };
        yield { type: 'text-delta', delta: ' never read' };
      },
    };
    const said: string[] = [];
    await expect(
      runModelStep(model, request, createReplyExtractor(), (d) => said.push(d)),
    ).rejects.toBe(failure);
    expect(said.join('')).toBe('Half');
  });
});

/** `value` without the ids that differ from one server and message to the next. */
function withoutIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutIds);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !/^(id|replyId|messageId|channelId)$/.test(key))
      .map(([key, inner]) => [key, withoutIds(inner)]),
  );
}

describe('reasoning on the model call span', () => {
  it('records its size always, and its text only with content capture', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const tracer = provider.getTracer('test');
    const agent = { agentId: 'a1', character: { name: 'Eliza' } } as AgentProfile;
    for (const captureContent of [false, true]) {
      await createReplyTelemetry({ tracer, modelName: 'thinker', captureContent }).chat(
        agent,
        request,
        () => runModelStep(thinker, request, createReplyExtractor(), () => undefined),
      );
    }
    const [plain, captured] = exporter.getFinishedSpans();
    expect(plain?.attributes['parley.model.reasoning_characters']).toBe(19);
    expect(plain?.attributes['gen_ai.output.messages']).toBeUndefined();
    expect(JSON.parse(String(captured?.attributes['gen_ai.output.messages']))).toEqual([
      {
        role: 'assistant',
        parts: [
          { type: 'reasoning', content: 'They said hi; done.' },
          { type: 'text', content: 'Hello!' },
        ],
      },
    ]);
    await provider.shutdown();
  });
});

describe('a failure as a part ends the reply as a thrown one does', () => {
  const failures = [
    new ParleyError('MODEL_ERROR', 'The model provider failed', { cause: new Error('sk-123') }),
    new ParleyError('TIMEOUT', 'The model did not answer within 10 ms'),
    new Error('a provider bug, key sk-456'),
  ];

  /** One model, either version: v1 throws `failure` after "Half", v2 yields it as an error part. */
  function failingModel(version: 'v1' | 'v2', failure: Error): ModelProvider {
    if (version === 'v1') return v1Model([{ type: 'text-delta', delta: 'Half' }], failure);
    return {
      specificationVersion: 'v2',
      name: 'v2',
      callsTools: false,
      async *stream() {
        await Promise.resolve();
        yield { type: 'text-delta', delta: 'Half' };
        yield { type: 'error', error: failure };
      },
    } satisfies ModelProviderV2;
  }

  /** What a client sees of one failing reply, in `sync` and in `stream` mode. */
  async function seenWith(model: ModelProvider) {
    await using test = await startTestServer({ model, characters: [{ name: 'Eliza' }] });
    const post = (mode: string) =>
      fetch(`${test.url}/api/messaging/channels/${randomUUID()}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'hello?', entityId: 'u', mode }),
      });
    const sync = await post('sync');
    const stream = await post('stream');
    const events = parseSse(await stream.text());
    return {
      sync: { status: sync.status, body: withoutIds(await sync.json()) },
      stream: events.map((event) => [event.event, withoutIds(event.data)]),
    };
  }

  it.each(failures.map((failure) => [failure.message, failure] as const))(
    '%s',
    async (_name, failure) => {
      const thrown = await seenWith(failingModel('v1', failure));
      const asPart = await seenWith(failingModel('v2', failure));
      expect(asPart).toEqual(thrown);
      expect(thrown.stream.at(-1)?.[0]).toBe('error');
      expect(thrown.sync.status).toBeGreaterThanOrEqual(500);
      expect(JSON.stringify(thrown)).not.toMatch(/sk-\d/);
    },
  );
});

describe('reasoning from a real stream shape', () => {
  it('never reaches the reply: vLLM/DeepSeek reasoning_content through the server', async () => {
    await using upstream = await startFakeOpenAIServer({ events: VLLM_REASONING_CONTENT.events });
    const model = createOpenAICompatibleModel({
      baseUrl: upstream.url,
      model: 'm',
      callsTools: false,
    });
    await using test = await startTestServer({ model, characters: [{ name: 'Eliza' }] });
    const channelId = randomUUID();
    const path = `${test.url}/api/messaging/channels/${channelId}/messages`;
    const response = await fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'hello?', entityId: 'u', mode: 'sync' }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { agentResponse: { text: string } };
    expect(body.agentResponse.text).toBe('Hello there!');
    const history = (await (await fetch(path)).json()) as {
      data: { messages: { content: string }[] };
    };
    expect(history.data.messages.map((message) => message.content)).toEqual([
      'Hello there!',
      'hello?',
    ]);
    expect(JSON.stringify(history)).not.toContain('greets');
  });
});
