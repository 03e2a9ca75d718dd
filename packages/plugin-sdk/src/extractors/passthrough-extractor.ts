import type { StreamExtractor } from './stream-extractor';
import { surrogateSafeCut } from './surrogates';

/**
 * Streams all content as it is. The only thing it ever holds back is the first half of a surrogate pair that a
 * chunk boundary cut in two.
 *
 * @example
 * const extractor = new PassthroughExtractor();
 * extractor.push('Hello '); // 'Hello '
 */
export class PassthroughExtractor implements StreamExtractor {
  #held = '';

  /** Always false: more input always means more output. */
  get done(): boolean {
    return false;
  }

  /** Code units held back (at most 1). */
  get bufferedLength(): number {
    return this.#held.length;
  }

  push(chunk: string): string {
    const input = this.#held + chunk;
    const cut = surrogateSafeCut(input, input.length);
    this.#held = input.slice(cut);
    return input.slice(0, cut);
  }

  flush(): string {
    const rest = this.#held;
    this.#held = '';
    return rest;
  }

  reset(): void {
    this.#held = '';
  }
}
