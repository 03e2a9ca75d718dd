import { ROOT_CONTEXT, SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import { ATTR_ERROR_TYPE } from '../tracing/semantic-attributes';
import { inActiveSpan } from '../tracing/in-span';
import { contextOfStored, traceHeaders } from '../tracing/trace-context';
import type { ClaimedDelivery, SendResult } from './delivery-types';

/** Where an attempt goes, for its span: never the URL's path or query (they may carry a token). */
function targetOf(url: string): Record<string, string | number> {
  try {
    const parsed = new URL(url);
    const port =
      parsed.port === '' ? (parsed.protocol === 'https:' ? 443 : 80) : Number(parsed.port);
    return {
      'server.address': parsed.hostname,
      'server.port': port,
      'url.scheme': parsed.protocol.replace(/:$/, ''),
    };
  } catch {
    return {};
  }
}

/**
 * Runs one webhook attempt in a CLIENT span (`POST`), a child of the trace context stored with the delivery when
 * it was enqueued (a trace of its own without one), and hands `send` the span's `traceparent` headers for the
 * receiver: a delivery sent later, or by another process, joins the trace of what caused it.
 */
export function tracedAttempt(
  tracer: Tracer,
  delivery: ClaimedDelivery,
  send: (headers: Record<string, string>) => Promise<SendResult>,
): Promise<SendResult> {
  const parent = delivery.traceContext
    ? contextOfStored(delivery.traceContext, ROOT_CONTEXT)
    : ROOT_CONTEXT;
  const attributes = {
    'http.request.method': 'POST',
    ...targetOf(delivery.url),
    'parley.webhook.delivery_id': delivery.id,
    'parley.webhook.subscription_id': delivery.subscriptionId,
    'parley.webhook.attempt': delivery.attempt,
  };
  return inActiveSpan(
    tracer,
    { name: 'POST', kind: SpanKind.CLIENT, attributes, parent },
    async (span) => {
      const result = await send(traceHeaders());
      if (result.responseStatus !== null) {
        span?.setAttribute('http.response.status_code', result.responseStatus);
      }
      if (!result.ok) {
        const type =
          result.responseStatus !== null
            ? String(result.responseStatus)
            : result.refused
              ? 'target_refused'
              : (result.error ?? 'error');
        span?.setAttribute(ATTR_ERROR_TYPE, type);
        span?.setStatus({ code: SpanStatusCode.ERROR });
      }
      return result;
    },
  );
}
