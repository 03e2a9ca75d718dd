import type { ChannelMessageRequestInput, StreamEvent } from '@parley/core';
import { ParleyClientError } from '../client-error';
import { buildRequest } from '../rest/build-request';
import type { HttpConfig } from '../rest/http-config';
import { invalidResponseError } from '../rest/invalid-response-error';
import { parseJsonText } from '../rest/parse-json-text';
import { toResponseError } from '../rest/to-response-error';
import { abortedError, withDeadline } from '../rest/with-deadline';
import type { SseEvent } from './create-sse-parser';
import { readSseEvents } from './read-sse-events';
import { streamEventError, streamInterruptedError } from './stream-event-error';
import { toStreamEvent } from './to-stream-event';

/** An event of the channel `stream` mode as the client yields it; an `error` event is thrown instead. */
export type ChannelStreamEvent = Exclude<StreamEvent, { event: 'error' }>;

/** Options of a `stream` mode call. */
export interface StreamOptions {
  /**
   * Aborts the stream: the iteration throws code `ABORTED`. The server still finishes the reply, stores it and
   * broadcasts it to the room.
   */
  signal?: AbortSignal;
  /** How long to wait for the response headers (ms; default: the client's timeout). */
  timeout?: number;
  /**
   * After a dropped connection, send the request again with `Last-Event-ID` (default true). A Parley server
   * continues the same reply from that event (it posts nothing again); a server that starts a new exchange
   * instead is not followed: the iteration throws `STREAM_INTERRUPTED`.
   */
  resume?: boolean;
  /** Most resume attempts for one stream (default 3). */
  maxResumeAttempts?: number;
}

/**
 * Posts a channel message in `stream` mode and yields its typed events: `user_message`, then `chunk`s (and a
 * `tool_call` and its `tool_result` for each tool the agent calls), then `done`, after which the iteration ends.
 * An `event: error` block becomes a thrown ParleyClientError after the events before it. The request is sent
 * when iteration starts; leaving the loop early cancels it.
 *
 * A call that needs a person's approval yields an `approval_request`; the reply then pauses, for as long as the
 * request lasts, and the stream stays open (the server's keep-alive comments hold it): no deadline applies once
 * the headers came. Decide with `decideApproval` (REST or socket) and the iteration goes on with the call's
 * `tool_result`, the reply's chunks and `done`.
 *
 * On a dropped connection (a network failure, or the body ending before `done`) the request is sent again
 * with `Last-Event-ID`. A Parley server answers with the events after that id (from memory while the reply
 * runs, from storage after) and the iteration carries on as if nothing happened. A server that starts a new
 * exchange instead, beginning with `user_message`, is cut off at once and the iteration throws
 * `STREAM_INTERRUPTED` with `details.lastEventId`; no event is yielded twice.
 */
export async function* streamChannelMessage(
  config: HttpConfig,
  channelId: string,
  message: Omit<ChannelMessageRequestInput, 'mode'>,
  options: StreamOptions = {},
): AsyncGenerator<ChannelStreamEvent, void, undefined> {
  const maxResumeAttempts = options.resume === false ? 0 : (options.maxResumeAttempts ?? 3);
  const path = `/api/messaging/channels/${encodeURIComponent(channelId)}/messages`;
  const body = { ...message, mode: 'stream' };
  let lastEventId: string | undefined;
  let resumeAttempts = 0;
  /** The calls whose `approval_request` was yielded: a resumed stream may send one again. */
  const approvals = new Set<string>();

  for (;;) {
    const resumingFrom = lastEventId;
    const events = await openStream(config, path, body, resumingFrom, options).catch(
      (error: unknown) => {
        if (resumingFrom === undefined) throw error;
        throw streamInterruptedError('the server refused to resume', resumingFrom, error);
      },
    );
    let first = true;
    let dropCause: unknown;
    try {
      for await (const sse of events) {
        const event = toStreamEvent(sse);
        if (event?.event === 'error') throw streamEventError(event.data.code, event.data.message);
        if (first && resumingFrom !== undefined && !continuesFrom(sse, resumingFrom)) {
          throw streamInterruptedError(
            'the server did not resume from Last-Event-ID',
            resumingFrom,
          );
        }
        first = false;
        if (sse.id !== '') lastEventId = sse.id;
        if (!event || repeatsApproval(event, approvals)) continue;
        yield event;
        if (event.event === 'done') return;
      }
    } catch (error) {
      if (ParleyClientError.isInstance(error)) throw error;
      if (options.signal?.aborted) throw abortedError(options.signal.reason);
      dropCause = error;
    }
    if (lastEventId === undefined || resumeAttempts >= maxResumeAttempts) {
      throw streamInterruptedError('the connection dropped', lastEventId, dropCause);
    }
    resumeAttempts += 1;
  }
}

/**
 * Whether the first event of a resumed connection continues the stream. A fresh exchange starts with
 * `user_message`; numeric ids (what Parley sends) must go up; other ids must at least differ.
 */
function continuesFrom(sse: SseEvent, lastEventId: string): boolean {
  if (sse.event === 'user_message' || sse.id === '') return false;
  // An approval request does not move the position: one sent again on resuming carries the id it came after.
  if (sse.event === 'approval_request' && sse.id === lastEventId) return true;
  const previous = Number(lastEventId);
  const next = Number(sse.id);
  if (Number.isInteger(previous) && Number.isInteger(next)) return next > previous;
  return sse.id !== lastEventId;
}

/** Whether `event` is an `approval_request` already yielded (and records the ones that are not). */
function repeatsApproval(event: ChannelStreamEvent, yielded: Set<string>): boolean {
  if (event.event !== 'approval_request') return false;
  if (yielded.has(event.data.toolCallId)) return true;
  yielded.add(event.data.toolCallId);
  return false;
}

/** Sends the request and checks the answer is an event stream; the deadline covers the headers only. */
function openStream(
  config: HttpConfig,
  path: string,
  body: unknown,
  lastEventId: string | undefined,
  options: StreamOptions,
): Promise<AsyncGenerator<SseEvent, void, undefined>> {
  const headers: Record<string, string> = {};
  if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
  const description = {
    method: 'POST' as const,
    path,
    body,
    accept: 'text/event-stream',
    headers,
  };
  return withDeadline(options.timeout ?? config.timeout, options.signal, async (signal) => {
    const response = await config.fetch(...buildRequest(config, description, signal));
    if (!response.ok) throw toResponseError(response.status, parseJsonText(await response.text()));
    const type = response.headers.get('content-type') ?? '';
    if (!type.startsWith('text/event-stream') || !response.body) {
      await response.body?.cancel();
      throw invalidResponseError(response.status, `content type "${type}"`);
    }
    return readSseEvents(response.body);
  });
}
