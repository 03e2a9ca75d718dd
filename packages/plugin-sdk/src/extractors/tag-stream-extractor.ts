import type { StreamExtractor } from './stream-extractor';
import { surrogateSafeCut } from './surrogates';

/**
 * What every tag-reading extractor shares: the tail held back between chunks (a tag that may be cut in two, half
 * a surrogate pair) and the done flag. A subclass reads the held tail and the new chunk together in `scan`.
 */
export abstract class TagStreamExtractor implements StreamExtractor {
  protected held = '';
  protected finished = false;

  get done(): boolean {
    return this.finished;
  }

  /** Code units held back because they may start a tag or finish a surrogate pair. */
  get bufferedLength(): number {
    return this.held.length;
  }

  push(chunk: string): string {
    if (this.finished) return '';
    const input = this.held + chunk;
    this.held = '';
    return this.scan(input);
  }

  abstract flush(): string;

  reset(): void {
    this.held = '';
    this.finished = false;
  }

  /** Reads the held tail and the new chunk; returns what to stream now, keeping in `held` what may still grow. */
  protected abstract scan(input: string): string;

  /** Holds `input` from `index` on (one unit earlier when that would split a surrogate pair); returns the rest. */
  protected holdFrom(input: string, index: number): string {
    const cut = surrogateSafeCut(input, index);
    this.held = input.slice(cut);
    return input.slice(0, cut);
  }
}
