import { scanForTag } from './tag-scan';
import { assertTagName } from './tag-name';
import { TagStreamExtractor } from './tag-stream-extractor';

/**
 * Streams only the content of the first `<tag>…</tag>` and is done once the closing tag arrives. Tags are matched
 * exactly (case-sensitive, no attributes) and may be split across chunks; text is streamed raw, without entity
 * decoding. Input without the tag streams nothing; an unclosed tag streams its content up to the end of input.
 * At most `'</tag>'.length` code units are ever held back.
 *
 * @example
 * const extractor = new XmlTagExtractor('answer');
 * extractor.push('<thinking>…</thinking><ans'); // ''
 * extractor.push('wer>42</answer>'); // '42'
 * extractor.done; // true
 */
export class XmlTagExtractor extends TagStreamExtractor {
  readonly #open: string;
  readonly #close: string;
  #inside = false;

  /** @throws TypeError when `tag` is not a plain XML name. */
  constructor(tag: string) {
    super();
    assertTagName(tag);
    this.#open = `<${tag}>`;
    this.#close = `</${tag}>`;
  }

  protected scan(input: string): string {
    if (!this.#inside) {
      const opening = scanForTag(input, [this.#open]);
      if (opening.tag === undefined) {
        this.held = input.slice(opening.index);
        return '';
      }
      this.#inside = true;
      input = input.slice(opening.index + opening.tag.length);
    }
    const closing = scanForTag(input, [this.#close]);
    if (closing.tag !== undefined) {
      this.finished = true;
      return input.slice(0, closing.index);
    }
    return this.holdFrom(input, closing.index);
  }

  flush(): string {
    // Before the opening tag the held tail is markup, not content; inside, it was only ever a possible tag.
    const rest = this.#inside && !this.finished ? this.held : '';
    this.held = '';
    return rest;
  }

  override reset(): void {
    super.reset();
    this.#inside = false;
  }
}
