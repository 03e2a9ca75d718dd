import type { RouteResponse } from '../plugin/route';

/** What a handler wrote to a {@link recordResponse} response. */
export interface RecordedResponse {
  status?: number;
  headers: Record<string, string>;
  /** The value given to `json`, or the string or bytes given to `send`. */
  body?: unknown;
}

/**
 * A route response that records what a handler writes, to unit-test a handler without a server (for
 * example, with a runtime whose `sendMessage` rejects, to check the error answer).
 *
 * @example
 * const { response, written } = recordResponse();
 * await myRoute.handler!(request, response, runtime);
 * expect(written).toMatchObject({ status: 500, body: { success: false } });
 */
export function recordResponse(): { response: RouteResponse; written: RecordedResponse } {
  const written: RecordedResponse = { headers: {} };
  const response: RouteResponse = {
    status(code) {
      written.status = code;
      return response;
    },
    setHeader(name, value) {
      written.headers[name.toLowerCase()] = value;
      return response;
    },
    json(body) {
      written.body = body;
    },
    send(body) {
      written.body = body;
    },
  };
  return { response, written };
}
