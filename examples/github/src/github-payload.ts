import { isRecord } from './is-record';

/** A GitHub event payload: untrusted JSON, read through {@link textAt} and {@link valueAt}. */
export type GithubPayload = Record<string, unknown>;

/** The value at a dotted path of a payload, or undefined when any step is missing. */
export function valueAt(payload: unknown, path: string): unknown {
  let value = payload;
  for (const key of path.split('.')) {
    if (!isRecord(value)) return undefined;
    value = value[key];
  }
  return value;
}

/** The string (or number) at a dotted path, cut to `maxLength`, else the fallback. */
export function textAt(payload: unknown, path: string, fallback: string, maxLength = 200): string {
  const value = valueAt(payload, path);
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value : '';
  const line = text.trim();
  if (line === '') return fallback;
  return line.length > maxLength ? `${line.slice(0, maxLength - 1)}…` : line;
}
