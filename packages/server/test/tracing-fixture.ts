import { Writable } from 'node:stream';
import { context, propagation, trace } from '@opentelemetry/api';
import { vi } from 'vitest';
import { createLogger } from '../src/logger';
import { startTracing, type StartedTracing } from '../src/tracing/start-tracing';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './otlp-receiver';

/** A caller's trace: what its `traceparent` names. */
export interface CallerTrace {
  traceId: string;
  spanId: string;
  traceparent: string;
}

/** A caller trace of random ids. */
export function callerTrace(): CallerTrace {
  const hex = (bytes: number) =>
    Array.from({ length: bytes }, () =>
      Math.floor(Math.random() * 256)
        .toString(16)
        .padStart(2, '0'),
    ).join('');
  const traceId = hex(16);
  const spanId = hex(8);
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

/** JSON log lines written to memory. */
export function memoryLog(level: 'info' | 'debug' = 'info') {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
        lines.push(JSON.parse(line) as Record<string, unknown>);
      }
      done();
    },
  });
  return { lines, logger: createLogger(level, destination) };
}

/** The SDK started from the `OTEL_*` environment, exporting `http/json` to a receiver in the test. */
export interface TracedTest {
  receiver: OtlpReceiver;
  tracing: StartedTracing;
  /** Flushes and stops the SDK (servers stopped first); the spans received, then clears the globals. */
  finish(): Promise<ReceivedSpan[]>;
}

export async function startTracedTest(): Promise<TracedTest> {
  const receiver = await startOtlpReceiver();
  vi.stubEnv('OTEL_TRACES_EXPORTER', 'otlp');
  vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', receiver.endpoint);
  vi.stubEnv('OTEL_EXPORTER_OTLP_PROTOCOL', 'http/json');
  vi.stubEnv('OTEL_TRACES_SAMPLER', 'parentbased_always_on');
  const tracing = (await startTracing())!;
  return {
    receiver,
    tracing,
    async finish() {
      await tracing.shutdown();
      await receiver[Symbol.asyncDispose]();
      vi.unstubAllEnvs();
      trace.disable();
      context.disable();
      propagation.disable();
      return receiver.spans;
    },
  };
}

export const byName = (spans: ReceivedSpan[], name: string) =>
  spans.filter((span) => span.name === name);

/** Whether `span` descends from `ancestor` among `spans`. */
export function descendsFrom(spans: ReceivedSpan[], span: ReceivedSpan, ancestor: ReceivedSpan) {
  const byId = new Map(spans.map((each) => [each.spanId, each]));
  for (let at = byId.get(span.parentSpanId); at; at = byId.get(at.parentSpanId)) {
    if (at.spanId === ancestor.spanId) return true;
  }
  return false;
}
