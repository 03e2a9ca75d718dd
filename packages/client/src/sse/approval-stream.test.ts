import { describe, expect, it } from 'vitest';
import { ParleyClientError } from '../client-error';
import { createParleyClient } from '../rest/create-parley-client';
import { sse, stubFetch } from '../test/stub-fetch';
import type { ChannelStreamEvent } from './stream-channel-message';

const channelId = '0b7f7f64-2d0a-4c52-9a2f-5d6e7f8a9b0c';
const replyId = '5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f';
const call = { toolCallId: 'call_1', toolName: 'DEPLOY', input: { target: 'prod' } };
const request = { replyId, ...call, expiresAt: '2030-01-01T00:00:00.000Z' };

/** One block as a Parley server writes it, with its reply-position id. */
const raw = (event: string, id: string, data: unknown) =>
  `event: ${event}\nid: ${id}\ndata: ${JSON.stringify(data)}\n\n`;

const before = [
  raw('user_message', `${replyId}:-1:0`, { id: 'u1', text: 'deploy', replyId }),
  raw('tool_call', `${replyId}:-1:0:1`, call),
  // An approval request does not move the position: it carries the id of the part before it.
  raw('approval_request', `${replyId}:-1:0:1`, request),
];
const after = [
  raw('tool_result', `${replyId}:-1:0:2`, { ...call, output: { text: 'deployed' } }),
  raw('chunk', `${replyId}:0:4:2`, { messageId: replyId, chunk: 'Done', index: 0 }),
  raw('done', `${replyId}:end`, { text: 'Done', actions: ['DEPLOY', 'REPLY'], toolCalls: [] }),
];

/** The events of a stream through one approval, in order. */
const THROUGH_APPROVAL = [
  'user_message',
  'tool_call',
  'approval_request',
  'tool_result',
  'chunk',
  'done',
];

/** "deploy" sent in `stream` mode by a client that fetches with `fetch`. */
function deployStream(fetch: typeof globalThis.fetch, options: { timeout?: number } = {}) {
  const client = createParleyClient({ baseUrl: 'http://x', fetch, ...options });
  return client.sendMessage(channelId, { text: 'deploy', entityId: 'u', mode: 'stream' });
}

/** Collects the events of a stream and what it finally threw. */
async function drain(
  stream: AsyncIterable<ChannelStreamEvent>,
  onEvent?: (event: ChannelStreamEvent) => void,
) {
  const events: ChannelStreamEvent[] = [];
  try {
    for await (const event of stream) {
      events.push(event);
      onEvent?.(event);
    }
    return { events, error: undefined };
  } catch (error) {
    if (!ParleyClientError.isInstance(error)) throw error;
    return { events, error };
  }
}

/**
 * An event stream that sends `before`, then only keep-alive comments until `decide()` is called (and at least
 * `minKeepAlives` went out), then `after`: a reply paused for a person.
 */
function pausedStream(minKeepAlives: number) {
  let decide!: () => void;
  const decided = new Promise<void>((resolve) => (decide = resolve));
  let isDecided = false;
  void decided.then(() => (isDecided = true));
  const encoder = new TextEncoder();
  const queue = [...before];
  const rest = [...after];
  let keepAlives = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = queue.shift();
      if (next !== undefined) return controller.enqueue(encoder.encode(next));
      if (isDecided && keepAlives >= minKeepAlives) {
        if (rest.length === 0) return controller.close();
        return controller.enqueue(encoder.encode(rest.shift()));
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
      keepAlives += 1;
      controller.enqueue(encoder.encode(': keep-alive\n\n'));
    },
  });
  const response = new Response(body, { headers: { 'content-type': 'text/event-stream' } });
  return { response, decide, keepAlives: () => keepAlives };
}

describe('a stream through an approval pause', () => {
  it('yields approval_request typed, stays open through keep-alives past the timeout, and goes on', async () => {
    const paused = pausedStream(5);
    const { fetch, requests } = stubFetch(() => paused.response);
    // A timeout far below the pause: it bounds the headers only.
    const stream = deployStream(fetch, { timeout: 30 });
    const { events, error } = await drain(stream, (event) => {
      if (event.event === 'approval_request') setTimeout(paused.decide, 100);
    });
    expect(error).toBeUndefined();
    expect(paused.keepAlives()).toBeGreaterThanOrEqual(5);
    expect(events.map((event) => event.event)).toEqual(THROUGH_APPROVAL);
    expect(events[2]).toEqual({
      event: 'approval_request',
      id: `${replyId}:-1:0:1`,
      data: request,
    });
    expect(requests).toHaveLength(1);
  });

  it('resumes a drop during the pause: the request sent again is not yielded twice', async () => {
    const { fetch, requests } = stubFetch(
      () => sse(before, { fail: true }).response,
      // The server repeats the request (same id as the Last-Event-ID), then follows the reply.
      () => sse([before[2]!, ...after]).response,
    );
    const stream = deployStream(fetch);
    const { events, error } = await drain(stream);
    expect(error).toBeUndefined();
    expect(requests[1]!.headers['last-event-id']).toBe(`${replyId}:-1:0:1`);
    expect(events.map((event) => event.event)).toEqual(THROUGH_APPROVAL);
  });

  it('resumes a drop between the call and its request: the request is yielded once, after the resume', async () => {
    const { fetch } = stubFetch(
      () => sse(before.slice(0, 2), { fail: true }).response,
      () => sse([before[2]!, ...after]).response,
    );
    const stream = deployStream(fetch);
    const { events, error } = await drain(stream);
    expect(error).toBeUndefined();
    expect(events.filter((event) => event.event === 'approval_request')).toHaveLength(1);
    expect(events.at(-1)?.event).toBe('done');
  });

  it('still refuses a resumed stream that repeats another event than an approval request', async () => {
    const { fetch } = stubFetch(
      () => sse(before.slice(0, 2), { fail: true }).response,
      () => sse([before[1]!, ...after]).response,
    );
    const stream = deployStream(fetch);
    const { error } = await drain(stream);
    expect(error).toMatchObject({ code: 'STREAM_INTERRUPTED' });
  });
});
