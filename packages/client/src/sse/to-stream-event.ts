import { type StreamEvent, streamEventSchemas } from '@parley/core';
import { invalidResponseError } from '../rest/invalid-response-error';
import { parseJsonText } from '../rest/parse-json-text';
import type { SseEvent } from './create-sse-parser';

/**
 * Validates one server-sent event of the channel `stream` mode against core's schema. Event names the client
 * does not know yet give `undefined`, so a newer server can add events without breaking older clients; a known
 * event with malformed data is an `INVALID_RESPONSE`.
 */
export function toStreamEvent(sse: SseEvent): StreamEvent | undefined {
  if (!Object.hasOwn(streamEventSchemas, sse.event)) return undefined;
  const name = sse.event as keyof typeof streamEventSchemas;
  const parsed = streamEventSchemas[name].safeParse(parseJsonText(sse.data));
  if (!parsed.success) throw invalidResponseError(200, `"${name}" event`, parsed.error.issues);
  const id = sse.id === '' ? {} : { id: sse.id };
  return { event: name, ...id, data: parsed.data } as StreamEvent;
}
