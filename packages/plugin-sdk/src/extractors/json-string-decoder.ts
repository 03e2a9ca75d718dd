import { isHighSurrogate, isLowSurrogate } from './surrogates';

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};
const HEX_DIGIT = /^[0-9a-fA-F]$/;
const REPLACEMENT = '\uFFFD';

/**
 * Decodes the inside of a JSON string one code unit at a time, so escapes (`\n`, `\uXXXX`, surrogate pairs
 * written as two `\u` escapes) may be cut anywhere by chunk boundaries. The first half of a surrogate pair is
 * held until its second half arrives; a half without its partner becomes U+FFFD, so the output is always
 * well-formed. Unknown escapes decode to the escaped character; a broken `\u` escape becomes U+FFFD.
 */
export class JsonStringDecoder {
  #escape: 'none' | 'backslash' | 'unicode' = 'none';
  #hexValue = 0;
  #hexDigits = 0;
  #pendingHigh = -1;
  #closed = false;

  /** Whether the closing quote has been read. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Code units of input whose output is still pending (escape in progress, half a surrogate pair). */
  get bufferedLength(): number {
    const escape =
      this.#escape === 'none' ? 0 : this.#escape === 'backslash' ? 1 : 2 + this.#hexDigits;
    return escape + (this.#pendingHigh === -1 ? 0 : 1);
  }

  /** Reads one code unit of the string (after its opening quote); returns the text it completes. */
  next(unit: string): string {
    switch (this.#escape) {
      case 'backslash':
        this.#escape = 'none';
        if (unit === 'u') {
          this.#escape = 'unicode';
          this.#hexValue = 0;
          this.#hexDigits = 0;
          return '';
        }
        return this.#emit((SIMPLE_ESCAPES[unit] ?? unit).charCodeAt(0));
      case 'unicode':
        if (!HEX_DIGIT.test(unit)) {
          this.#escape = 'none';
          // The broken escape is replaced, and the unit that broke it is read as ordinary string content.
          return this.#emit(REPLACEMENT.charCodeAt(0)) + this.next(unit);
        }
        this.#hexValue = this.#hexValue * 16 + Number.parseInt(unit, 16);
        this.#hexDigits += 1;
        if (this.#hexDigits < 4) return '';
        this.#escape = 'none';
        return this.#emit(this.#hexValue);
      case 'none':
        if (unit === '\\') {
          this.#escape = 'backslash';
          return '';
        }
        if (unit === '"') {
          this.#closed = true;
          return this.finish();
        }
        return this.#emit(unit.charCodeAt(0));
    }
  }

  /** Ends the string (closing quote or end of input); returns what the pending units become. */
  finish(): string {
    const brokenEscape = this.#escape === 'unicode' ? REPLACEMENT : '';
    const danglingHalf = this.#pendingHigh === -1 ? '' : REPLACEMENT;
    this.#escape = 'none';
    this.#pendingHigh = -1;
    return danglingHalf + brokenEscape;
  }

  /** Returns to the state before a string's first unit. */
  reset(): void {
    this.#escape = 'none';
    this.#pendingHigh = -1;
    this.#closed = false;
  }

  #emit(code: number): string {
    const pending = this.#pendingHigh;
    this.#pendingHigh = -1;
    if (isLowSurrogate(code) && pending !== -1) return String.fromCharCode(pending, code);
    const before = pending === -1 ? '' : REPLACEMENT;
    if (isHighSurrogate(code)) {
      this.#pendingHigh = code;
      return before;
    }
    return before + (isLowSurrogate(code) ? REPLACEMENT : String.fromCharCode(code));
  }
}
