import { validateHeaderName, validateHeaderValue } from 'node:http';
import type { HeaderValue } from '@parley/plugin-sdk';

/**
 * The headers of a plugin route response as Node's `ServerResponse` keeps them: looked up case-insensitively,
 * returned as set, turned into fetch `Headers` when the response is sent. Names and values are checked when set
 * (Node's own validators), so a bad header fails in the handler that set it.
 */
export class ResponseHeaders {
  readonly #values = new Map<string, { name: string; value: HeaderValue }>();

  set(name: string, value: HeaderValue): void {
    validateHeaderName(name);
    const values = typeof value === 'object' ? value : [value];
    for (const item of values) validateHeaderValue(name, String(item));
    this.#values.set(name.toLowerCase(), { name, value });
  }

  get(name: string): HeaderValue | undefined {
    return this.#values.get(name.toLowerCase())?.value;
  }

  has(name: string): boolean {
    return this.#values.has(name.toLowerCase());
  }

  delete(name: string): void {
    this.#values.delete(name.toLowerCase());
  }

  /** Every header with its lower-case name. */
  toObject(): Record<string, HeaderValue> {
    const result: Record<string, HeaderValue> = {};
    for (const [key, { value }] of this.#values) result[key] = value;
    return result;
  }

  /** Sets every header of a `writeHead` argument: an object, or a flat `[name, value, ...]` list. */
  setAll(headers: Record<string, HeaderValue> | readonly string[]): void {
    if (Array.isArray(headers)) {
      const list = headers as readonly string[];
      for (let index = 0; index + 1 < list.length; index += 2)
        this.set(list[index]!, list[index + 1]!);
      return;
    }
    for (const [name, value] of Object.entries(headers)) this.set(name, value);
  }

  toHeaders(): Headers {
    const headers = new Headers();
    for (const { name, value } of this.#values.values()) {
      if (typeof value === 'object') for (const item of value) headers.append(name, item);
      else headers.set(name, String(value));
    }
    return headers;
  }
}
