/**
 * @module @parley/client/sse
 * A spec-compliant, incremental `text/event-stream` parser, usable on any SSE body.
 */
export { createSseParser } from './create-sse-parser';
export type { SseEvent, SseParser } from './create-sse-parser';
export { readSseEvents } from './read-sse-events';
