import type { StreamExtractor } from './stream-extractor';
import { surrogateSafeCut } from './surrogates';
import { scanForTag } from './tag-scan';
import { assertTagName } from './tag-name';

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
export class XmlTagExtractor implements StreamExtractor {
  readonly #open: string;
  readonly #close: string;
  #inside = false;
  #done = false;
  #held = '';

  /** @throws TypeError when `tag` is not a plain XML name. */
  constructor(tag: string) {
    assertTagName(tag);
    this.#open = `<${tag}>`;
    this.#close = `</${tag}>`;
  }

  get done(): boolean {
    return this.#done;
  }

  /** Code units held back because they may start a tag or finish a surrogate pair. */
  get bufferedLength(): number {
    return this.#held.length;
  }

  push(chunk: string): string {
    if (this.#done) return '';
    let input = this.#held + chunk;
    this.#held = '';
    if (!this.#inside) {
      const opening = scanForTag(input, [this.#open]);
      if (opening.tag === undefined) {
        this.#held = input.slice(opening.index);
        return '';
      }
      this.#inside = true;
      input = input.slice(opening.index + opening.tag.length);
    }
    const closing = scanForTag(input, [this.#close]);
    if (closing.tag !== undefined) {
      this.#done = true;
      return input.slice(0, closing.index);
    }
    const cut = surrogateSafeCut(input, closing.index);
    this.#held = input.slice(cut);
    return input.slice(0, cut);
  }

  flush(): string {
    // Before the opening tag the held tail is markup, not content; inside, it was only ever a possible tag.
    const rest = this.#inside && !this.#done ? this.#held : '';
    this.#held = '';
    return rest;
  }

  reset(): void {
    this.#inside = false;
    this.#done = false;
    this.#held = '';
  }
}
