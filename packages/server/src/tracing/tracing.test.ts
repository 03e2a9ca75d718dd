import { Writable } from 'node:stream';
import { context, propagation, trace } from '@opentelemetry/api';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  answerFromResults,
  startLoopServer,
  toolResultsOf,
  weatherAction,
} from '../../test/agent-loop-fixture';
import { startOtlpReceiver, type ReceivedSpan } from '../../test/otlp-receiver';
import { createLogger } from '../logger';
import { createMetrics } from '../metrics/create-metrics';
import type { ModelRequest } from '../models/model-provider';
import { startTracing } from './start-tracing';

/** The caller's trace: what its `traceparent` names. */
const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = `00-${CALLER_TRACE}-${CALLER_SPAN}-01`;

const weather = { toolCallId: 'call_1', toolName: 'GET_WEATHER', input: '{"city":"Paris"}' };
/** A tool the agent does not have: its call fails, and the model is told. */
const madeUp = { toolCallId: 'call_2', toolName: 'MADE_UP', input: '{}' };

/** Calls `calls` first; answers from the results once they came back. */
const callFirst = (calls: (typeof weather)[]) => (request: ModelRequest) =>
  toolResultsOf(request).length === 0 ? calls : undefined;

/** JSON log lines written to memory. */
function memoryLog() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
        lines.push(JSON.parse(line) as Record<string, unknown>);
      }
      done();
    },
  });
  return { lines, logger: createLogger('info', destination) };
}

/**
 * One channel message whose model calls a tool, sent with a `traceparent`, through a server whose tracer
 * provider is the SDK's, started from the `OTEL_*` environment alone and exporting to `receiver`.
 */
async function converse(
  env: Record<string, string>,
  options: { capture?: boolean; calls?: (typeof weather)[] } = {},
) {
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  const tracing = await startTracing();
  const log = memoryLog();
  const metrics = createMetrics({ processMetrics: false });
  const loop = await startLoopServer((calls) => [weatherAction(calls)], {
    logger: log.logger,
    metrics,
    ...(tracing ? { tracerProvider: tracing.tracerProvider } : {}),
    ...(options.capture ? { captureMessageContent: true } : {}),
  });
  loop.model.behaviour = {
    toolCalls: callFirst(options.calls ?? [weather]),
    reply: answerFromResults,
    plain: true,
    usage: { inputTokens: 120, outputTokens: 7 },
  };
  const response = await fetch(
    `${loop.test.url}/api/messaging/channels/${loop.channel()}/messages`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: TRACEPARENT },
      body: JSON.stringify({ entityId: 'user-1', text: 'Weather in Paris?', mode: 'sync' }),
    },
  );
  const body = (await response.json()) as { agentResponse: { text: string } };
  await loop.test[Symbol.asyncDispose]();
  await tracing?.shutdown();
  return { response, body, tracing, log, metrics };
}

afterEach(() => {
  vi.unstubAllEnvs();
  // The SDK registers globals: each test starts its own.
  trace.disable();
  context.disable();
  propagation.disable();
});

function byName(spans: ReceivedSpan[], name: string): ReceivedSpan[] {
  return spans.filter((span) => span.name === name);
}

/** Checks the trace one tool-calling reply makes: caller → HTTP → invoke_agent → chat ×2, execute_tool. */
function expectOneTrace(spans: ReceivedSpan[]) {
  expect(new Set(spans.map((span) => span.traceId))).toEqual(new Set([CALLER_TRACE]));
  const [http] = byName(spans, 'POST /api/messaging/channels/:channelId/messages');
  expect(http).toMatchObject({
    parentSpanId: CALLER_SPAN,
    kind: 2,
    attributes: {
      'http.request.method': 'POST',
      'http.route': '/api/messaging/channels/:channelId/messages',
      'http.response.status_code': 200,
    },
  });
  const [agent] = byName(spans, 'invoke_agent Eliza');
  expect(agent).toMatchObject({
    parentSpanId: http!.spanId,
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'Eliza',
      'gen_ai.provider.name': 'scripted',
    },
  });
  expect(agent!.attributes['gen_ai.agent.id']).toMatch(/^[0-9a-f-]{36}$/);
  expect(agent!.attributes['gen_ai.conversation.id']).toMatch(/^[0-9a-f-]{36}$/);
  const chats = byName(spans, 'chat scripted');
  expect(chats).toHaveLength(2);
  for (const chat of chats) {
    expect(chat).toMatchObject({
      parentSpanId: agent!.spanId,
      kind: 3,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'scripted',
        'gen_ai.usage.input_tokens': 120,
        'gen_ai.usage.output_tokens': 7,
      },
    });
  }
  const [tool] = byName(spans, 'execute_tool GET_WEATHER');
  expect(tool).toMatchObject({
    parentSpanId: agent!.spanId,
    attributes: {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'GET_WEATHER',
      'gen_ai.tool.call.id': 'call_1',
    },
    statusCode: 0,
  });
  return { http: http!, agent: agent! };
}

// A server per test, started on a shared machine.
describe('OpenTelemetry traces, exported to an OTLP receiver', { timeout: 60_000 }, () => {
  it('makes one channel message that calls a tool one trace from the caller (http/json)', async () => {
    await using receiver = await startOtlpReceiver();
    const { response, body, log } = await converse({
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'parley-under-test',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=test',
      OTEL_TRACES_SAMPLER: 'parentbased_always_on',
    });
    expect(response.status).toBe(200);
    expect(body.agentResponse.text).toContain('Sunny in Paris');
    expect(receiver.contentTypes.every((type) => type.startsWith('application/json'))).toBe(true);
    const { http } = expectOneTrace(receiver.spans);
    expect(http.resource).toMatchObject({
      'service.name': 'parley-under-test',
      'deployment.environment.name': 'test',
    });
    // Contents are not on spans unless opted in.
    const attributes = receiver.spans.flatMap((span) => Object.keys(span.attributes));
    expect(attributes).not.toContain('gen_ai.input.messages');
    expect(attributes).not.toContain('gen_ai.tool.call.arguments');
    // The request's log line names its trace and span.
    const requestLine = log.lines.find((line) => line.path !== undefined && line.status === 200);
    expect(requestLine).toMatchObject({ trace_id: CALLER_TRACE, span_id: http.spanId });
  });

  it('sends the same trace as protobuf (http/protobuf), with contents when opted in', async () => {
    await using receiver = await startOtlpReceiver();
    await converse(
      {
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      },
      { capture: true, calls: [weather, madeUp] },
    );
    expect(receiver.contentTypes.length).toBeGreaterThan(0);
    expect(receiver.contentTypes.every((type) => type === 'application/x-protobuf')).toBe(true);
    const { http } = expectOneTrace(receiver.spans);
    expect(http.resource['service.name']).toBe('parley');
    const [chat] = byName(receiver.spans, 'chat scripted');
    expect(String(chat!.attributes['gen_ai.input.messages'])).toContain('Weather in Paris?');
    const [tool] = byName(receiver.spans, 'execute_tool GET_WEATHER');
    expect(tool!.attributes['gen_ai.tool.call.arguments']).toBe('{"city":"Paris"}');
    const [failed] = byName(receiver.spans, 'execute_tool MADE_UP');
    expect(failed).toMatchObject({
      statusCode: 2,
      attributes: { 'gen_ai.tool.call.id': 'call_2', 'error.type': 'unknown_tool' },
    });
  });

  it.each([
    ['unset', undefined],
    ['none', 'none'],
  ])(
    'sends nothing, fails nothing and logs no trace ids with OTEL_TRACES_EXPORTER %s',
    async (_label, exporter) => {
      await using receiver = await startOtlpReceiver();
      const { response, body, tracing, log } = await converse({
        ...(exporter ? { OTEL_TRACES_EXPORTER: exporter } : {}),
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      });
      expect(tracing).toBeUndefined();
      expect(response.status).toBe(200);
      expect(body.agentResponse.text).toContain('Sunny in Paris');
      expect(log.lines.length).toBeGreaterThan(0);
      expect(log.lines.some((line) => 'trace_id' in line)).toBe(false);
      expect(receiver.contentTypes).toEqual([]);
    },
  );

  it('counts each model call’s tokens and duration in Prometheus, with tracing off', async () => {
    const { metrics } = await converse({});
    const { body } = await metrics.render();
    expect(body).toContain(
      'gen_ai_client_token_usage_sum{token_type="input",agent="Eliza",model="scripted"} 240',
    );
    expect(body).toContain(
      'gen_ai_client_token_usage_sum{token_type="output",agent="Eliza",model="scripted"} 14',
    );
    expect(body).toContain(
      'gen_ai_client_operation_duration_seconds_count{agent="Eliza",model="scripted"} 2',
    );
  });
});
