/**
 * OpenTelemetry traces: the SDK started from the standard `OTEL_*` settings, the HTTP span, the GenAI spans of a
 * reply's loop, and the trace ids in log lines.
 */
export * from './http-tracing';
export * from './reply-telemetry';
export * from './start-tracing';
export * from './trace-context';
export * from './log-context';
export * from './in-span';
export * from './socket-tracing';
