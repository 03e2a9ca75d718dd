import { describe, expect, it } from 'vitest';
import { ParleyClientError } from '../client-error';
import { createParleyClient } from '../rest/create-parley-client';
import { block, json, sse, stubFetch } from '../test/stub-fetch';
import type { ChannelStreamEvent } from './stream-channel-message';

const channelId = '0b7f7f64-2d0a-4c52-9a2f-5d6e7f8a9b0c';
const userMessage = block('user_message', 0, { id: 'u1', text: 'hi' });
const chunk = (id: number, text: string) =>
  block('chunk', id, { messageId: 'r1', chunk: text, index: id - 1 });
const done = (id: number) => block('done', id, { text: 'Hello there', actions: ['REPLY'] });

/** Collects the events of a stream and what it finally threw. */
async function drain(stream: AsyncIterable<ChannelStreamEvent>) {
  const events: ChannelStreamEvent[] = [];
  try {
    for await (const event of stream) events.push(event);
    return { events, error: undefined };
  } catch (error) {
    if (!ParleyClientError.isInstance(error)) throw error;
    return { events, error };
  }
}

function streamOf(fetch: typeof globalThis.fetch, resume?: boolean) {
  const client = createParleyClient({ baseUrl: 'http://x', fetch });
  return client.sendMessage(channelId, { text: 'hi', entityId: 'u', mode: 'stream' }, { resume });
}

describe('sendMessage in stream mode', () => {
  it('yields typed events with their ids, keep-alives ignored, and ends after done', async () => {
    const { fetch, requests } = stubFetch(
      () =>
        sse([userMessage, ': keep-alive\n\n', chunk(1, 'Hello'), chunk(2, ' there'), done(3)])
          .response,
    );
    const { events, error } = await drain(streamOf(fetch));
    expect(error).toBeUndefined();
    expect(events).toEqual([
      { event: 'user_message', id: '0', data: { id: 'u1', text: 'hi' } },
      { event: 'chunk', id: '1', data: { messageId: 'r1', chunk: 'Hello', index: 0 } },
      { event: 'chunk', id: '2', data: { messageId: 'r1', chunk: ' there', index: 1 } },
      // A server older than tool calls sends no toolCalls: read as none.
      { event: 'done', id: '3', data: { text: 'Hello there', actions: ['REPLY'], toolCalls: [] } },
    ]);
    expect(requests[0]!.headers.accept).toBe('text/event-stream');
    expect(requests[0]!.body).toMatchObject({ mode: 'stream' });
  });

  it('throws an error event as ParleyClientError after the events before it', async () => {
    const { fetch } = stubFetch(
      () =>
        sse([
          userMessage,
          chunk(1, 'Hel'),
          block('error', 2, { code: 'MODEL_ERROR', message: 'down' }),
        ]).response,
    );
    const { events, error } = await drain(streamOf(fetch));
    expect(events.map((event) => event.event)).toEqual(['user_message', 'chunk']);
    expect(error).toMatchObject({
      status: 502,
      code: 'MODEL_ERROR',
      message: 'down',
      retryable: true,
    });
  });

  it('rejects a known event with malformed data as INVALID_RESPONSE', async () => {
    const { fetch } = stubFetch(() => sse([block('chunk', 0, { chunk: 1 })]).response);
    const { error } = await drain(streamOf(fetch));
    expect(error).toMatchObject({ code: 'INVALID_RESPONSE' });
  });

  it('maps an error status before the stream to the server error', async () => {
    const { fetch } = stubFetch(() =>
      json({ success: false, error: { code: 'NOT_FOUND', message: 'Unknown agent' } }, 404),
    );
    const { events, error } = await drain(streamOf(fetch));
    expect(events).toEqual([]);
    expect(error).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });

  it('resumes with Last-Event-ID after a drop, when the server continues from it', async () => {
    const { fetch, requests } = stubFetch(
      () => sse([userMessage, chunk(1, 'Hello')], { fail: true }).response,
      () => sse([chunk(2, ' there'), done(3)]).response,
    );
    const { events, error } = await drain(streamOf(fetch, true));
    expect(error).toBeUndefined();
    expect(events.map((event) => event.id)).toEqual(['0', '1', '2', '3']);
    expect(requests).toHaveLength(2);
    expect(requests[0]!.headers['last-event-id']).toBeUndefined();
    expect(requests[1]!.headers['last-event-id']).toBe('1');
    expect(requests[1]!.body).toEqual(requests[0]!.body);
  });

  it('yields tool_call and tool_result typed, and resumes between them with the id of the last', async () => {
    const replyId = '5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f';
    const raw = (event: string, id: string, data: unknown) =>
      `event: ${event}\nid: ${id}\ndata: ${JSON.stringify(data)}\n\n`;
    const call = { toolCallId: 'c1', toolName: 'LOOKUP', input: { q: 'tea' } };
    const records = [{ ...call, output: { text: 'hot' } }];
    const { fetch, requests } = stubFetch(
      () =>
        sse(
          [
            raw('user_message', `${replyId}:-1:0`, { id: 'u1', text: 'hi', replyId }),
            raw('tool_call', `${replyId}:-1:0:1`, call),
          ],
          { fail: true },
        ).response,
      () =>
        sse([
          raw('tool_result', `${replyId}:-1:0:2`, {
            toolCallId: 'c1',
            toolName: 'LOOKUP',
            output: { text: 'hot' },
          }),
          raw('chunk', `${replyId}:0:3:2`, { messageId: replyId, chunk: 'Hot', index: 0 }),
          raw('done', `${replyId}:end`, {
            text: 'Hot',
            actions: ['LOOKUP', 'REPLY'],
            toolCalls: records,
          }),
        ]).response,
    );
    const { events, error } = await drain(streamOf(fetch, true));
    expect(error).toBeUndefined();
    expect(requests[1]!.headers['last-event-id']).toBe(`${replyId}:-1:0:1`);
    expect(events.map((event) => event.event)).toEqual([
      'user_message',
      'tool_call',
      'tool_result',
      'chunk',
      'done',
    ]);
    const result = events[2]!;
    if (result.event !== 'tool_result' || !('output' in result.data))
      throw new Error('not an output');
    expect(result.data.output).toEqual({ text: 'hot' });
    const end = events[4]!;
    if (end.event !== 'done') throw new Error('not done');
    expect(end.data.toolCalls).toEqual(records);
  });

  it('reads a failed tool call as a tool_result with error, and refuses a malformed one', async () => {
    const failed = { toolCallId: 'c2', toolName: 'MADE_UP', error: 'Unknown tool MADE_UP' };
    const { fetch } = stubFetch(
      () => sse([userMessage, block('tool_result', 1, failed), done(2)]).response,
      () =>
        sse([userMessage, block('tool_call', 1, { toolCallId: 'c3', toolName: 7, input: {} })])
          .response,
    );
    const { events } = await drain(streamOf(fetch));
    expect(events[1]).toEqual({ event: 'tool_result', id: '1', data: failed });
    const { error } = await drain(streamOf(fetch));
    expect(error).toMatchObject({ code: 'INVALID_RESPONSE' });
  });

  it('also resumes when the body simply ends before done', async () => {
    const { fetch, requests } = stubFetch(
      () => sse([userMessage]).response,
      () => sse([chunk(1, 'Hi'), done(2)]).response,
    );
    const { events } = await drain(streamOf(fetch, true));
    expect(events.map((event) => event.event)).toEqual(['user_message', 'chunk', 'done']);
    expect(requests[1]!.headers['last-event-id']).toBe('0');
  });

  it('stops with STREAM_INTERRUPTED, yielding nothing twice, when the server starts over', async () => {
    const restarted = sse([userMessage, chunk(1, 'Hello'), done(2)]);
    const { fetch, requests } = stubFetch(
      () => sse([userMessage, chunk(1, 'Hello')], { fail: true }).response,
      () => restarted.response,
    );
    const { events, error } = await drain(streamOf(fetch, true));
    expect(events.map((event) => event.id)).toEqual(['0', '1']);
    expect(error).toMatchObject({
      status: 0,
      code: 'STREAM_INTERRUPTED',
      retryable: false,
      details: { lastEventId: '1' },
    });
    expect(requests).toHaveLength(2);
    await restarted.cancelled;
  });

  it('stops with STREAM_INTERRUPTED when the server refuses the resume request', async () => {
    const { fetch } = stubFetch(
      () => sse([userMessage], { fail: true }).response,
      () => json({ success: false, error: { code: 'CONFLICT', message: 'no' } }, 409),
    );
    const { error } = await drain(streamOf(fetch, true));
    expect(error).toMatchObject({ code: 'STREAM_INTERRUPTED', details: { lastEventId: '0' } });
    expect(error?.cause).toMatchObject({ status: 409 });
  });

  it('does not send the request again when resume is off (it is on by default)', async () => {
    const { fetch, requests } = stubFetch(() => sse([userMessage], { fail: true }).response);
    const { error } = await drain(streamOf(fetch, false));
    expect(error).toMatchObject({ code: 'STREAM_INTERRUPTED' });
    expect(requests).toHaveLength(1);
  });

  it('gives up after maxResumeAttempts drops', async () => {
    let id = 0;
    const { fetch, requests } = stubFetch(
      () =>
        sse([block('chunk', id, { messageId: 'r', chunk: 'x', index: id++ })], { fail: true })
          .response,
    );
    const client = createParleyClient({ baseUrl: 'http://x', fetch });
    const stream = client.sendMessage(
      channelId,
      { text: 'hi', entityId: 'u', mode: 'stream' },
      { resume: true, maxResumeAttempts: 2 },
    );
    const { events, error } = await drain(stream);
    expect(events).toHaveLength(3);
    expect(requests).toHaveLength(3);
    expect(error).toMatchObject({ code: 'STREAM_INTERRUPTED', details: { lastEventId: '2' } });
  });

  it('throws ABORTED and cancels the body when the caller aborts mid-stream', async () => {
    const controller = new AbortController();
    const { fetch } = stubFetch((request) => {
      const body = new ReadableStream<Uint8Array>({
        start(stream) {
          stream.enqueue(new TextEncoder().encode(userMessage));
          request.signal?.addEventListener('abort', () => stream.error(request.signal?.reason));
        },
      });
      return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
    });
    const client = createParleyClient({ baseUrl: 'http://x', fetch });
    const stream = client.sendMessage(
      channelId,
      { text: 'hi', entityId: 'u', mode: 'stream' },
      { signal: controller.signal },
    );
    const seen: string[] = [];
    const error: unknown = await (async () => {
      for await (const event of stream) {
        seen.push(event.event);
        controller.abort();
      }
    })().catch((reason: unknown) => reason);
    expect(seen).toEqual(['user_message']);
    expect(error).toMatchObject({ code: 'ABORTED', retryable: false });
  });
});
