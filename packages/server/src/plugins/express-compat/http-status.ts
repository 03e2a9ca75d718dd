/** Statuses whose responses never carry a body. */
export const BODYLESS_STATUSES: ReadonlySet<number> = new Set([204, 205, 304]);

/**
 * Checks a status a handler set. A fetch `Response` cannot carry 1xx or out-of-range codes; failing in the
 * handler points at the handler's bug.
 *
 * @throws RangeError for anything but an integer from 200 to 599.
 */
export function checkStatus(code: unknown): number {
  if (typeof code !== 'number' || !Number.isInteger(code) || code < 200 || code > 599) {
    throw new RangeError(`Invalid HTTP status ${String(code)}`);
  }
  return code;
}
