import { JsonStringDecoder } from './json-string-decoder';
import type { StreamExtractor } from './stream-extractor';

type Container = 'object' | 'array';
type StringRole = 'key' | 'text' | 'other';

const TEXT_KEY = 'text';

/**
 * Streams the decoded value of the top-level `"text"` string field of a JSON object, or of the first object in a
 * top-level array that has one, and is done after it (or once the root value closes). Other values are skipped
 * without being kept: only the nesting depth is counted, so deep or endless input uses constant memory.
 * Malformed JSON never throws; it is read as far as it makes sense.
 *
 * @example
 * const extractor = new JsonTextFieldExtractor();
 * extractor.push('{"actions":["REPLY"],"text":"caf'); // 'caf'
 * extractor.push('\\u00e9"}'); // 'é'
 */
export class JsonTextFieldExtractor implements StreamExtractor {
  #decoder = new JsonStringDecoder();
  #done = false;
  #depth = 0;
  // Only the two outermost levels can hold the field, so deeper levels are counted, never stored.
  #containers: [Container | undefined, Container | undefined] = [undefined, undefined];
  #role: StringRole | undefined;
  #expectKey = false;
  #key = '';
  #keyIsText = false;

  get done(): boolean {
    return this.#done;
  }

  /** Code units held back: an escape or half a surrogate pair in progress, or part of a key. */
  get bufferedLength(): number {
    return this.#decoder.bufferedLength + this.#key.length;
  }

  push(chunk: string): string {
    let output = '';
    for (let index = 0; index < chunk.length && !this.#done; index += 1) {
      const unit = chunk.charAt(index);
      if (this.#role === undefined) this.#readStructure(unit);
      else output += this.#readString(unit);
    }
    return output;
  }

  flush(): string {
    const rest = this.#role === 'text' ? this.#decoder.finish() : '';
    this.#decoder.reset();
    this.#role = undefined;
    return rest;
  }

  reset(): void {
    this.#decoder.reset();
    this.#done = false;
    this.#depth = 0;
    this.#containers = [undefined, undefined];
    this.#role = undefined;
    this.#expectKey = false;
    this.#key = '';
    this.#keyIsText = false;
  }

  /** Whether the innermost open container is the object whose `"text"` field is wanted. */
  #inCandidateObject(): boolean {
    const [root, child] = this.#containers;
    if (this.#depth === 1) return root === 'object';
    return this.#depth === 2 && root === 'array' && child === 'object';
  }

  #readStructure(unit: string): void {
    switch (unit) {
      case '"':
        if (!this.#inCandidateObject()) this.#role = 'other';
        else if (this.#expectKey) this.#role = 'key';
        else this.#role = this.#keyIsText ? 'text' : 'other';
        this.#key = '';
        return;
      case '{':
      case '[':
        this.#depth += 1;
        if (this.#depth <= 2) this.#containers[this.#depth - 1] = unit === '{' ? 'object' : 'array';
        if (this.#inCandidateObject()) this.#startMember();
        return;
      case '}':
      case ']':
        if (this.#depth === 0) return;
        this.#depth -= 1;
        if (this.#depth === 0) this.#done = true;
        return;
      case ',':
        if (this.#inCandidateObject()) this.#startMember();
        return;
      default:
        return;
    }
  }

  #startMember(): void {
    this.#expectKey = true;
    this.#keyIsText = false;
  }

  #readString(unit: string): string {
    const decoded = this.#decoder.next(unit);
    const role = this.#role;
    if (role === 'key') {
      // One unit more than "text" is enough to tell a longer key apart.
      this.#key = (this.#key + decoded).slice(0, TEXT_KEY.length + 1);
    }
    if (!this.#decoder.closed) return role === 'text' ? decoded : '';
    this.#decoder.reset();
    this.#role = undefined;
    if (role === 'key') {
      this.#keyIsText = this.#key === TEXT_KEY;
      this.#expectKey = false;
      this.#key = '';
    }
    if (role === 'text') this.#done = true;
    return role === 'text' ? decoded : '';
  }
}
