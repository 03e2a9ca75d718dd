import {
  context,
  isSpanContextValid,
  trace,
  type Context,
  type TextMapGetter,
} from '@opentelemetry/api';
import type * as ContextAsyncHooks from '@opentelemetry/context-async-hooks';
import type * as OtelCore from '@opentelemetry/core';
import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);

let w3cPropagator: OtelCore.W3CTraceContextPropagator | undefined;

/**
 * `traceparent` / `tracestate`, read and written whatever propagator the process registered. Required at first
 * use, not imported at start-up: with tracing off it is needed only for a request that carries a trace
 * context, and `@opentelemetry/core` is megabytes of resident memory (see docs/decisions.md).
 */
function w3c(): OtelCore.W3CTraceContextPropagator {
  w3cPropagator ??= new (
    load('@opentelemetry/core') as typeof OtelCore
  ).W3CTraceContextPropagator();
  return w3cPropagator;
}

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
  if (!kept) {
    const { AsyncLocalStorageContextManager } = load(
      '@opentelemetry/context-async-hooks',
    ) as typeof ContextAsyncHooks;
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  }
}

/** The context a `traceparent` (and `tracestate`) header carries; the root context without a valid one. */
export function extractTraceContext<Carrier>(
  carrier: Carrier,
  getter: TextMapGetter<Carrier>,
): Context {
  return w3c().extract(context.active(), carrier, getter);
}

/** The `traceparent` (and `tracestate`) headers of the active span; none without one. */
export function traceHeaders(active: Context = context.active()): Record<string, string> {
  const headers: Record<string, string> = {};
  if (trace.getSpan(active)) {
    w3c().inject(active, headers, {
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

/** A stored trace context: the W3C headers (`traceparent`, `tracestate`) of the span that was active. */
export type StoredTraceContext = Record<string, string>;

/**
 * The active span's trace context, to store with what another process (or this one, later) goes on with: a
 * paused reply, a webhook delivery. Null without an active span (tracing off costs one lookup).
 */
export function storableTraceContext(
  active: Context = context.active(),
): StoredTraceContext | null {
  const headers = traceHeaders(active);
  return headers.traceparent ? headers : null;
}

/** `base` (default: the active context) in the trace a stored trace context names (read back as any JSON value). */
export function contextOfStored(stored: unknown, base: Context = context.active()): Context {
  if (!stored || typeof stored !== 'object') return base;
  const headers = stored as Record<string, unknown>;
  const getter: TextMapGetter<Record<string, unknown>> = {
    get: (carrier, key) => {
      const value = carrier[key];
      return typeof value === 'string' ? value : undefined;
    },
    keys: (carrier) => Object.keys(carrier),
  };
  return w3c().extract(base, headers, getter);
}
