import {
  type Attributes,
  type Context,
  context,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
} from '@opentelemetry/api';
import { ATTR_ERROR_TYPE } from './semantic-attributes';

/** What {@link inActiveSpan} makes. */
export interface SpanRequest {
  name: string;
  kind?: SpanKind;
  attributes?: Attributes;
  /** The parent (default: the active context). */
  parent?: Context;
}

/** The `error.type` of what a span's work threw: its Parley code, else its class name. */
export function errorTypeOf(error: unknown): string {
  if (error && typeof error === 'object') {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    if (error instanceof Error) return error.name;
  }
  return '_OTHER';
}

/**
 * Runs `work` in a new active span, ended (failed, with `error.type`, when `work` throws) once `work` settles.
 * Without a tracer, `work` runs as it is: tracing off costs one test.
 */
export function inActiveSpan<T>(
  tracer: Tracer | undefined,
  request: SpanRequest,
  work: (span: Span | undefined) => Promise<T>,
): Promise<T> {
  if (!tracer) return work(undefined);
  const options = { kind: request.kind ?? SpanKind.INTERNAL, attributes: request.attributes };
  const parent = request.parent ?? context.active();
  return tracer.startActiveSpan(request.name, options, parent, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.setAttribute(ATTR_ERROR_TYPE, errorTypeOf(error));
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Adds attributes to the active span (a request's, a socket event's), if there is one. */
export function annotate(attributes: Attributes): void {
  trace.getActiveSpan()?.setAttributes(attributes);
}

/** Marks the active span failed with the Parley error code it answered. */
export function markFailed(code: string): void {
  const span = trace.getActiveSpan();
  if (!span) return;
  span.setAttribute(ATTR_ERROR_TYPE, code);
  span.setStatus({ code: SpanStatusCode.ERROR });
}
