import { API_KEY_HEADER } from '@parley/core';
import { currentCredential, type HttpConfig } from './http-config';

/** One HTTP call as the client describes it, before it is sent. */
export interface RequestDescription {
  method?: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Path under the base address, starting with `/`. */
  path: string;
  /** Query parameters; undefined values are left out. */
  query?: Record<string, string | number | undefined>;
  /** JSON body. */
  body?: unknown;
  /** Accept header (default `application/json`). */
  accept?: string;
  /** Extra headers. */
  headers?: Record<string, string>;
  /** Aborts the call. */
  signal?: AbortSignal;
  /** Overrides the client's timeout for this call (ms). */
  timeout?: number;
}

/** Turns a {@link RequestDescription} into the URL and init that fetch takes. */
export function buildRequest(
  config: HttpConfig,
  description: RequestDescription,
  signal: AbortSignal,
): [string, RequestInit] {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(description.query ?? {})) {
    if (value !== undefined) search.set(key, String(value));
  }
  const query = search.size > 0 ? `?${search.toString()}` : '';
  const headers: Record<string, string> = {
    accept: description.accept ?? 'application/json',
    ...description.headers,
  };
  const apiKey = currentCredential(config.apiKey);
  if (apiKey) headers[API_KEY_HEADER] = apiKey;
  const init: RequestInit = { method: description.method ?? 'GET', headers, signal };
  if (description.body !== undefined) {
    headers['content-type'] = 'application/json';
    init.body = JSON.stringify(description.body);
  }
  return [`${config.baseUrl}${description.path}${query}`, init];
}
