import { ParleyError } from '@parley/core';

/**
 * Serialises a JSON value canonically: object keys sorted by UTF-16 code units, no whitespace, numbers and
 * strings as `JSON.stringify` writes them. For the values Parley binds (strings, finite numbers, null, arrays,
 * plain objects) this is RFC 8785 (JCS), so a verifier in another language can recompute the digest.
 *
 * @example
 * canonicalJson({ b: 1, a: [true, null] }); // '{"a":[true,null],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string') {
    return JSON.stringify(value);
  }
  if (typeof value === 'number') {
    // NaN and Infinity would silently become null and make two different inputs collide.
    if (!Number.isFinite(value))
      throw new ParleyError('BAD_REQUEST', 'Cannot bind a non-finite number');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item)).join(',')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  throw new ParleyError('BAD_REQUEST', `Cannot bind a value of type ${typeof value}`);
}
