/**
 * @module @parley/plugin-sdk/extractors
 * Stream extractors: turn a model's streamed output into what the client sees, chunk by chunk, with bounded
 * memory and the same result however the input is split.
 */
export type { StreamExtractor } from './stream-extractor';
export { PassthroughExtractor } from './passthrough-extractor';
export { XmlTagExtractor } from './xml-tag-extractor';
export { DEFAULT_MAX_FIELD_LENGTH, ResponseStreamExtractor } from './response-stream-extractor';
export type { ResponseStreamExtractorOptions } from './response-stream-extractor';
export { ActionStreamFilter, MAX_LEADING_WHITESPACE } from './action-stream-filter';
export type { StreamContentType } from './action-stream-filter';
