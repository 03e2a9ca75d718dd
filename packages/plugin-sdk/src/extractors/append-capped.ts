import { isHighSurrogate } from './surrogates';

/**
 * Appends to a captured field without letting it grow past `limit` code units. The result is always the
 * field's first `limit` units (less a trailing half surrogate pair), however the additions were split.
 */
export function appendCapped(current: string, addition: string, limit: number): string {
  if (addition === '' || current.length >= limit) return current;
  const joined = current + addition;
  if (joined.length <= limit) return joined;
  const end = isHighSurrogate(joined.charCodeAt(limit - 1)) ? limit - 1 : limit;
  return joined.slice(0, end);
}
