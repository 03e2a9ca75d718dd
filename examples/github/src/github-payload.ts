import { isRecord } from '@parley/plugin-sdk';

/** A GitHub event payload: untrusted JSON, read through {@link textAt} and {@link valueAt}. */
export type GithubPayload = Record<string, unknown>;

/** The value at a dotted path of a payload (`pages.0.html_url` indexes a list), or undefined when a step is missing. */
export function valueAt(payload: unknown, path: string): unknown {
  let value = payload;
  for (const key of path.split('.')) {
    if (Array.isArray(value) && /^\d+$/.test(key)) value = value[Number(key)];
    else if (isRecord(value) && Object.hasOwn(value, key)) value = value[key];
    else return undefined;
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
