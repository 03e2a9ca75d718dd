import type { z } from 'zod';
import type { HttpConfig } from './http-config';
import { type RequestDescription, buildRequest } from './build-request';
import { invalidResponseError } from './invalid-response-error';
import { parseJsonText } from './parse-json-text';
import { toResponseError } from './to-response-error';
import { withDeadline } from './with-deadline';

/**
 * Sends one JSON call and validates the 2xx body with `schema`. The deadline covers the whole exchange, body
 * included. Failures are ParleyClientErrors: the server's error body, `INVALID_RESPONSE`, `TIMEOUT`,
 * `NETWORK_ERROR` or `ABORTED`.
 */
export function requestJson<T extends z.ZodType>(
  config: HttpConfig,
  description: RequestDescription,
  schema: T,
): Promise<z.output<T>> {
  return withDeadline(description.timeout ?? config.timeout, description.signal, async (signal) => {
    const response = await config.fetch(...buildRequest(config, description, signal));
    const body = parseJsonText(await response.text());
    if (!response.ok) throw toResponseError(response.status, body);
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      throw invalidResponseError(response.status, 'response', parsed.error.issues);
    }
    return parsed.data;
  });
}
