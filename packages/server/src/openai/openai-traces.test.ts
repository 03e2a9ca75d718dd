import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../test/scripted-model';
import { startTestServer } from '../../test/test-server';
import { byName, callerTrace, descendsFrom, startTracedTest } from '../../test/tracing-fixture';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

describe('spans of the OpenAI face', { timeout: 60_000 }, () => {
  it("a /v1 request continues the caller's trace and is the parent of its reply, streamed and not", async () => {
    const traced = await startTracedTest();
    const model = new ScriptedModel();
    model.behaviour = { plain: true, reply: 'Traced hello' };
    const test = await startTestServer({ model, tracerProvider: traced.tracing.tracerProvider });
    cleanup.push(async () => test[Symbol.asyncDispose]());
    const agentId = test.server.agents.defaultAgent.agentId;
    const [plainCaller, streamCaller] = [callerTrace(), callerTrace()];
    const client = (traceparent: string) =>
      new OpenAI({
        baseURL: `${test.url}/v1`,
        apiKey: 'unused',
        maxRetries: 0,
        defaultHeaders: { traceparent },
      });
    const plain = await client(plainCaller.traceparent).chat.completions.create({
      model: agentId,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(plain.choices[0]!.message.content).toBe('Traced hello');
    const stream = await client(streamCaller.traceparent).responses.create({
      model: agentId,
      input: 'hi',
      stream: true,
    });
    for await (const event of stream) void event;
    await test[Symbol.asyncDispose]();
    const spans = await traced.finish();

    const agents = byName(spans, 'invoke_agent Eliza');
    for (const [caller, route] of [
      [plainCaller, 'POST /v1/chat/completions'],
      [streamCaller, 'POST /v1/responses'],
    ] as const) {
      const [server] = byName(spans, route).filter((span) => span.traceId === caller.traceId);
      expect(server, route).toMatchObject({ kind: 2, parentSpanId: caller.spanId });
      const agent = agents.find((span) => span.traceId === caller.traceId);
      expect(agent, route).toBeDefined();
      expect(descendsFrom(spans, agent!, server!)).toBe(true);
    }
  });
});
