import {
  context,
  isSpanContextValid,
  trace,
  type Context,
  type TextMapGetter,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';

/** `traceparent` / `tracestate`, read and written whatever propagator the process registered. */
const w3c = new W3CTraceContextPropagator();

/**
 * Makes the active span follow async work (`AsyncLocalStorage`), once per process, for a server given a tracer
 * provider without the SDK started (tests, embedders): without a context manager no span would have children.
 * One registered before (the SDK's) stays.
 */
export function ensureContextManager(): void {
  const probe = trace.setSpanContext(context.active(), {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    traceFlags: 0,
  });
  const kept = context.with(probe, () => trace.getSpanContext(context.active()) !== undefined);
  if (!kept) context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
}

/** The context a `traceparent` (and `tracestate`) header carries; the root context without a valid one. */
export function extractTraceContext<Carrier>(
  carrier: Carrier,
  getter: TextMapGetter<Carrier>,
): Context {
  return w3c.extract(context.active(), carrier, getter);
}

/** The `traceparent` (and `tracestate`) headers of the active span; none without one. */
export function traceHeaders(active: Context = context.active()): Record<string, string> {
  const headers: Record<string, string> = {};
  if (trace.getSpan(active)) {
    w3c.inject(active, headers, {
      set: (carrier: Record<string, string>, key, value) => (carrier[key] = value),
    });
  }
  return headers;
}

/**
 * What a log line written while a span is active carries: its `trace_id` and `span_id` (a pino `mixin`). Nothing
 * outside a span, or with tracing off.
 */
export function traceFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getSpan(context.active());
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return isSpanContextValid(span.spanContext()) ? { trace_id: traceId, span_id: spanId } : {};
}
