import { API_KEY_HEADER } from '@parley/core';
import { safeEqual } from './safe-equal';

/** Request headers as a plain record with lower-case names, or a fetch `Headers`. */
export type HeaderSource =
  Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * Whether the request's `x-api-key` header equals the expected key, compared in constant time. An empty or
 * missing expected key gives false: a route whose key is not configured stays closed rather than open.
 *
 * @example
 * if (!checkApiKey(request.headers, runtime.getSetting('WEBHOOK_API_KEY'))) {
 *   return response.status(401).json({ success: false, error: 'Unauthorized' });
 * }
 */
export function checkApiKey(headers: HeaderSource, expected: string | undefined | null): boolean {
  if (!expected) return false;
  const received =
    headers instanceof Headers ? headers.get(API_KEY_HEADER) : headers[API_KEY_HEADER];
  // A repeated header is ambiguous; refusing it is safer than picking one of the values.
  if (typeof received !== 'string') return false;
  return safeEqual(received, expected);
}
