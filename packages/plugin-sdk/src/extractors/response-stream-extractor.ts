import { appendCapped } from './append-capped';
import { isPlainReply, parseActions } from './parse-actions';
import { scanForTag } from './tag-scan';
import { TagStreamExtractor } from './tag-stream-extractor';

type Field = 'thought' | 'actions' | 'text';

const OPENING_TAGS: Readonly<Record<string, Field>> = {
  '<thought>': 'thought',
  '<actions>': 'actions',
  '<text>': 'text',
};
const OPENING_TAG_LIST = Object.keys(OPENING_TAGS);

/** Default of {@link ResponseStreamExtractorOptions.maxFieldLength}: 1 Mi code units. */
export const DEFAULT_MAX_FIELD_LENGTH = 1_048_576;

/** Options of a {@link ResponseStreamExtractor}. */
export interface ResponseStreamExtractorOptions {
  /**
   * Most code units kept of each captured field (`thought`, the raw actions, `text`), so that endless input
   * cannot exhaust memory. Streaming is not affected: streamed text is never cut.
   */
  maxFieldLength?: number;
}

/**
 * The default extractor, aware of actions. It reads the action-aware format
 * `<response><thought>…</thought><actions>REPLY</actions><text>…</text></response>` and streams the `<text>`
 * content only when the reply is plain: the actions are exactly `["REPLY"]`, or no `<actions>` came before
 * `<text>`. With other actions the action handlers speak for the agent, so nothing is streamed; the text is
 * still captured. Done after `</text>`.
 *
 * Tags are matched exactly (case-sensitive, no attributes) and may be split across chunks; content is raw, with
 * no entity decoding. Text outside the three tags is ignored. Malformed or unclosed markup never throws: an
 * unclosed field ends at the end of input. At most `'</actions>'.length` code units are ever held back.
 *
 * @example
 * const extractor = new ResponseStreamExtractor();
 * extractor.push('<response><thought>greet</thought><actions>REPLY</actions><text>Hel'); // 'Hel'
 * extractor.push('lo!</text></response>'); // 'lo!'
 * extractor.actions; // ['REPLY']
 */
export class ResponseStreamExtractor extends TagStreamExtractor {
  readonly #maxFieldLength: number;
  #field: Field | undefined;
  #streaming = false;
  #thought: string | undefined;
  #rawActions: string | undefined;
  #actions: string[] | undefined;
  #text: string | undefined;

  /** @throws RangeError when `maxFieldLength` is not a positive integer. */
  constructor(options: ResponseStreamExtractorOptions = {}) {
    super();
    const maxFieldLength = options.maxFieldLength ?? DEFAULT_MAX_FIELD_LENGTH;
    if (!Number.isSafeInteger(maxFieldLength) || maxFieldLength < 1) {
      throw new RangeError(`maxFieldLength must be a positive integer, got ${maxFieldLength}`);
    }
    this.#maxFieldLength = maxFieldLength;
  }

  /** The `<thought>` content so far; undefined until the tag opens. */
  get thought(): string | undefined {
    return this.#thought;
  }

  /** The parsed `<actions>`; undefined until the tag closes (or the input ends inside it). */
  get actions(): readonly string[] | undefined {
    return this.#actions;
  }

  /** The `<text>` content so far, streamed or not; undefined until the tag opens. */
  get text(): string | undefined {
    return this.#text;
  }

  /** Whether the `<text>` content is being streamed; false until `<text>` opens. */
  get streaming(): boolean {
    return this.#streaming;
  }

  protected scan(input: string): string {
    let output = '';
    while (!this.finished) {
      if (this.#field === undefined) {
        const opening = scanForTag(input, OPENING_TAG_LIST);
        if (opening.tag === undefined) {
          this.held = input.slice(opening.index);
          break;
        }
        this.#open(OPENING_TAGS[opening.tag]!);
        input = input.slice(opening.index + opening.tag.length);
        continue;
      }
      const closing = scanForTag(input, [`</${this.#field}>`]);
      if (closing.tag === undefined) {
        output += this.#take(this.holdFrom(input, closing.index));
        break;
      }
      output += this.#take(input.slice(0, closing.index));
      this.#close();
      input = input.slice(closing.index + closing.tag.length);
    }
    return output;
  }

  flush(): string {
    if (this.#field === undefined) {
      this.held = '';
      return '';
    }
    // The input ended inside a field: its held tail was never a closing tag, so it is content.
    const rest = this.#take(this.held);
    this.held = '';
    if (this.#field === 'actions') this.#actions = parseActions(this.#rawActions ?? '');
    return rest;
  }

  override reset(): void {
    super.reset();
    this.#field = undefined;
    this.#streaming = false;
    this.#thought = undefined;
    this.#rawActions = undefined;
    this.#actions = undefined;
    this.#text = undefined;
  }

  #open(field: Field): void {
    this.#field = field;
    // A repeated tag starts its field over: the last one before <text> is the one the model meant.
    if (field === 'thought') this.#thought = '';
    if (field === 'actions') this.#rawActions = '';
    if (field === 'text') {
      this.#text = '';
      this.#streaming = this.#actions === undefined || isPlainReply(this.#actions);
    }
  }

  #take(content: string): string {
    const limit = this.#maxFieldLength;
    switch (this.#field) {
      case 'thought':
        this.#thought = appendCapped(this.#thought ?? '', content, limit);
        return '';
      case 'actions':
        this.#rawActions = appendCapped(this.#rawActions ?? '', content, limit);
        return '';
      case 'text':
        this.#text = appendCapped(this.#text ?? '', content, limit);
        return this.#streaming ? content : '';
      default:
        return '';
    }
  }

  #close(): void {
    if (this.#field === 'actions') this.#actions = parseActions(this.#rawActions ?? '');
    if (this.#field === 'text') this.finished = true;
    this.#field = undefined;
  }
}
