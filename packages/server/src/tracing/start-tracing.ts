import { trace, type TracerProvider } from '@opentelemetry/api';

/** The OpenTelemetry SDK, started from the environment: its tracer provider, and how to flush and stop it. */
export interface StartedTracing {
  /** The provider to hand `createServer` (`tracerProvider`). */
  readonly tracerProvider: TracerProvider;
  /** Exports what is buffered and stops the SDK (at the process's exit). */
  shutdown(): Promise<void>;
}

/**
 * Whether the environment turns traces on: `OTEL_TRACES_EXPORTER` names an exporter (`otlp`, `console`,
 * `zipkin`) other than `none`, and `OTEL_SDK_DISABLED` is not `true`. Off by default.
 */
export function tracingEnabled(env: Record<string, string | undefined> = process.env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '' && name !== 'null');
  return exporters.length > 0 && !exporters.includes('none');
}

/** Whether message contents may go on spans (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`). */
export function capturesMessageContent(env: Record<string, string | undefined> = process.env) {
  return env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT?.trim().toLowerCase() === 'true';
}

/**
 * Starts the OpenTelemetry SDK for traces when `env` (the process environment merged over `.env`) asks for them
 * ({@link tracingEnabled}), else returns undefined and starts nothing. Everything else is the SDK's own settings:
 * `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`), `OTEL_EXPORTER_OTLP_PROTOCOL`
 * (`http/protobuf`, `http/json`, `grpc`), `OTEL_SERVICE_NAME` (default here `parley`), `OTEL_RESOURCE_ATTRIBUTES`,
 * `OTEL_TRACES_SAMPLER` and `OTEL_TRACES_SAMPLER_ARG`, `OTEL_PROPAGATORS`. Only traces: Parley's metrics are
 * Prometheus's (`/metrics`), its logs pino's, so the SDK's metric and log exporters are not started. The SDK
 * registers the global tracer provider, context manager and propagator. The SDK is loaded here, only when asked
 * for: a server without traces never loads it (it is most of the resident memory tracing would cost).
 */
export async function startTracing(
  env: Record<string, string | undefined> = process.env,
): Promise<StartedTracing | undefined> {
  if (!tracingEnabled(env)) return undefined;
  // The SDK reads `process.env` alone: `OTEL_*` settings from `.env` join it (the process's own win).
  for (const [name, value] of Object.entries(env)) {
    if (name.startsWith('OTEL_') && value !== undefined && process.env[name] === undefined) {
      process.env[name] = value;
    }
  }
  const named =
    (env.OTEL_SERVICE_NAME ?? '') !== '' ||
    /(^|,)\s*service\.name\s*=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? '');
  const { NodeSDK } = await import('@opentelemetry/sdk-node');
  const sdk = new NodeSDK({
    ...(named ? {} : { serviceName: 'parley' }),
    metricReaders: [],
    logRecordProcessors: [],
  });
  sdk.start();
  return { tracerProvider: trace.getTracerProvider(), shutdown: () => sdk.shutdown() };
}
