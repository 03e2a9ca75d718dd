import { JsonTextFieldExtractor } from './json-text-field-extractor';
import { PassthroughExtractor } from './passthrough-extractor';
import {
  ResponseStreamExtractor,
  type ResponseStreamExtractorOptions,
} from './response-stream-extractor';
import type { StreamExtractor } from './stream-extractor';

/** What an {@link ActionStreamFilter} found the model's output to be. */
export type StreamContentType = 'json' | 'xml' | 'text';

/**
 * Leading whitespace kept while the content type is still unknown. Past it the output is taken to be plain
 * text, so that endless whitespace cannot grow the held-back buffer.
 */
export const MAX_LEADING_WHITESPACE = 256;

const WHITESPACE = /\s/;

/**
 * Detects the content type from the first non-whitespace character and extracts accordingly:
 * - `{` or `[`: JSON; streams the decoded value of the top-level `"text"` string field (see
 *   {@link JsonTextFieldExtractor}), escapes included, however they are split;
 * - `<`: the action-aware XML format; behaves as {@link ResponseStreamExtractor};
 * - anything else: plain text, streamed as it is (leading whitespace included).
 *
 * At most `max(MAX_LEADING_WHITESPACE, '</actions>'.length)` code units are ever held back.
 *
 * @example
 * const filter = new ActionStreamFilter();
 * filter.push('  {"text": "Hi\\n'); // 'Hi\n'
 * filter.contentType; // 'json'
 */
export class ActionStreamFilter implements StreamExtractor {
  readonly #options: ResponseStreamExtractorOptions;
  #leading = '';
  #contentType: StreamContentType | undefined;
  #inner: JsonTextFieldExtractor | ResponseStreamExtractor | PassthroughExtractor | undefined;

  /** Options are passed to the {@link ResponseStreamExtractor} used for XML. */
  constructor(options: ResponseStreamExtractorOptions = {}) {
    this.#options = options;
  }

  get done(): boolean {
    return this.#inner?.done ?? false;
  }

  /** The detected content type; undefined until the first non-whitespace character. */
  get contentType(): StreamContentType | undefined {
    return this.#contentType;
  }

  /** The parsed `<thought>`, when the content is XML. */
  get thought(): string | undefined {
    return this.#inner instanceof ResponseStreamExtractor ? this.#inner.thought : undefined;
  }

  /** The parsed `<actions>`, when the content is XML. */
  get actions(): readonly string[] | undefined {
    return this.#inner instanceof ResponseStreamExtractor ? this.#inner.actions : undefined;
  }

  /** Code units held back: leading whitespace while the type is unknown, else the inner extractor's. */
  get bufferedLength(): number {
    return this.#inner?.bufferedLength ?? this.#leading.length;
  }

  push(chunk: string): string {
    if (this.#inner !== undefined) return this.#inner.push(chunk);
    let end = 0;
    const room = MAX_LEADING_WHITESPACE - this.#leading.length;
    while (end < chunk.length && end < room && WHITESPACE.test(chunk.charAt(end))) end += 1;
    this.#leading += chunk.slice(0, end);
    const rest = chunk.slice(end);
    if (this.#leading.length < MAX_LEADING_WHITESPACE && rest === '') return '';
    const inner = this.#detect(this.#leading.length < MAX_LEADING_WHITESPACE ? rest.charAt(0) : '');
    const input = this.#leading + rest;
    this.#leading = '';
    return inner.push(input);
  }

  flush(): string {
    if (this.#inner !== undefined) return this.#inner.flush();
    // The input was only whitespace: plain text.
    const inner = this.#detect('');
    const leading = this.#leading;
    this.#leading = '';
    return inner.push(leading) + inner.flush();
  }

  reset(): void {
    this.#leading = '';
    this.#contentType = undefined;
    this.#inner = undefined;
  }

  #detect(first: string): JsonTextFieldExtractor | ResponseStreamExtractor | PassthroughExtractor {
    if (first === '{' || first === '[') {
      this.#contentType = 'json';
      this.#inner = new JsonTextFieldExtractor();
    } else if (first === '<') {
      this.#contentType = 'xml';
      this.#inner = new ResponseStreamExtractor(this.#options);
    } else {
      this.#contentType = 'text';
      this.#inner = new PassthroughExtractor();
    }
    return this.#inner;
  }
}
