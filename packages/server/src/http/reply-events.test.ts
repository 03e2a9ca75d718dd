import type { StoredMessage } from '@parley/core';
import { describe, expect, it } from 'vitest';
import type { ParsedEvent } from '../../test/sse';
import type { ReplyPart } from '../reply/parts/reply-part';
import { ReplyStream } from '../reply/parts/reply-stream';
import { parseEventId } from './reply-event-id';
import { sendReplyEvents, startOf } from './reply-events';
import type { SseStream } from './sse-stream';

import { channelId, invented, lookup, records, replyId, TEXT } from '../../test/tool-reply-fixture';

/** A reply that says something, calls two tools at once, gets their outcomes, then says the rest. */
function liveParts(): ReplyPart[] {
  const ids = { replyId };
  return [
    { type: 'reply-start', ...ids, channelId, agentId: 'a', agentName: 'Eliza', inReplyTo: null },
    { type: 'text-delta', ...ids, delta: 'Let me ', index: 0 },
    { type: 'text-delta', ...ids, delta: 'check. ', index: 1 },
    { type: 'tool-call', ...ids, ...lookup, step: 0 },
    { type: 'tool-call', ...ids, ...invented, step: 0 },
    { type: 'tool-result', ...ids, ...records[0]!, step: 0 },
    { type: 'tool-result', ...ids, ...records[1]!, step: 0 },
    { type: 'text-delta', ...ids, delta: 'Hot', index: 2 },
    { type: 'text-delta', ...ids, delta: '!', index: 3 },
    {
      type: 'reply-end',
      ...ids,
      message: null,
      text: TEXT,
      actions: ['LOOKUP', 'REPLY'],
      thought: undefined,
      toolCalls: records,
    },
  ];
}

function storedReply(overrides: Partial<StoredMessage> = {}): StoredMessage {
  return {
    id: replyId,
    channel_id: channelId,
    server_id: channelId,
    author_id: 'a',
    author_name: 'Eliza',
    content: TEXT,
    source_type: 'agent_response',
    raw_message: { text: TEXT, actions: ['LOOKUP', 'REPLY'], toolCalls: records },
    metadata: {},
    in_reply_to: null,
    created_at: '2025-01-01T00:00:00.000Z',
    ...overrides,
  };
}

/** An SSE stream that keeps what is sent, as a client would read it (JSON on the wire). */
function recordingSse() {
  const events: ParsedEvent[] = [];
  const aborter = new AbortController();
  const sse: SseStream & { events: ParsedEvent[]; closed: boolean } = {
    events,
    closed: false,
    response: new Response(),
    signal: aborter.signal,
    send(event, data, id) {
      events.push({ event, data: JSON.parse(JSON.stringify(data)), ...(id ? { id } : {}) });
    },
    close() {
      sse.closed = true;
    },
  };
  return sse;
}

function live(parts = liveParts()) {
  const stream = new ReplyStream(replyId, channelId, null);
  for (const part of parts) stream.write(part);
  return stream;
}

/** The events a client gets from `stream` after `lastEventId` (from the start without one). */
function eventsAfter(stream: ReplyStream, lastEventId?: string) {
  const sse = recordingSse();
  sendReplyEvents(stream, sse, lastEventId ? parseEventId(lastEventId)! : startOf(replyId));
  return sse.events;
}

describe('sendReplyEvents with tool parts', () => {
  it('sends each tool call and result in order, numbering tool parts from the first one on', () => {
    const events = eventsAfter(live());
    expect(events.map(({ event, id }) => [event, id])).toEqual([
      ['chunk', `${replyId}:0:7`],
      ['chunk', `${replyId}:1:14`],
      ['tool_call', `${replyId}:1:14:1`],
      ['tool_call', `${replyId}:1:14:2`],
      ['tool_result', `${replyId}:1:14:3`],
      ['tool_result', `${replyId}:1:14:4`],
      ['chunk', `${replyId}:2:17:4`],
      ['chunk', `${replyId}:3:18:4`],
      ['done', `${replyId}:end`],
    ]);
    expect(events.slice(2, 6).map((event) => event.data)).toEqual([
      lookup,
      invented,
      { toolCallId: 'c1', toolName: 'LOOKUP', output: { text: 'hot' } },
      { toolCallId: 'c2', toolName: 'MADE_UP', error: 'Unknown tool MADE_UP' },
    ]);
    expect(events.at(-1)!.data).toEqual({
      text: TEXT,
      actions: ['LOOKUP', 'REPLY'],
      toolCalls: records,
    });
  });

  it('resumes from memory after any event with exactly the events after it', () => {
    const all = eventsAfter(live());
    all.slice(0, -1).forEach((event, i) => {
      expect(eventsAfter(live(), event.id), event.id).toEqual(all.slice(i + 1));
    });
  });

  it('resumes a running reply between tool parts, then follows it live', () => {
    const parts = liveParts();
    const stream = live(parts.slice(0, 5)); // the two calls, no result yet
    const sse = recordingSse();
    sendReplyEvents(stream, sse, parseEventId(`${replyId}:1:14:1`)!);
    expect(sse.events.map((event) => event.id)).toEqual([`${replyId}:1:14:2`]);
    for (const part of parts.slice(5)) stream.write(part);
    expect(sse.events.map((event) => event.event)).toEqual([
      'tool_call',
      'tool_result',
      'tool_result',
      'chunk',
      'chunk',
      'done',
    ]);
    expect(sse.closed).toBe(true);
  });

  it('rebuilds a stored reply: its tool calls, each with its result, then its text', () => {
    const events = eventsAfter(ReplyStream.ofStored(storedReply()));
    expect(events.map(({ event, id }) => [event, id])).toEqual([
      ['tool_call', `${replyId}:-1:0:1`],
      ['tool_result', `${replyId}:-1:0:2`],
      ['tool_call', `${replyId}:-1:0:3`],
      ['tool_result', `${replyId}:-1:0:4`],
      ['chunk', `${replyId}:0:18:4`],
      ['done', `${replyId}:end`],
    ]);
    expect(events.map((event) => event.data)).toEqual([
      lookup,
      { toolCallId: 'c1', toolName: 'LOOKUP', output: { text: 'hot' } },
      invented,
      { toolCallId: 'c2', toolName: 'MADE_UP', error: 'Unknown tool MADE_UP' },
      { messageId: replyId, chunk: TEXT, index: 0 },
      { text: TEXT, actions: ['LOOKUP', 'REPLY'], toolCalls: records },
    ]);
    // From storage too, each event's id resumes with exactly what follows it.
    events.slice(0, -1).forEach((event, i) => {
      expect(eventsAfter(ReplyStream.ofStored(storedReply()), event.id)).toEqual(
        events.slice(i + 1),
      );
    });
  });

  it('resumes from storage with the id a live stream gave, skipping the text and tool parts it had', () => {
    const stored = () => ReplyStream.ofStored(storedReply());
    // After all the tool parts and "Let me check. ": the rest of the text, numbered after its chunk.
    expect(eventsAfter(stored(), `${replyId}:1:14:4`)).toEqual([
      {
        event: 'chunk',
        id: `${replyId}:2:18:4`,
        data: { messageId: replyId, chunk: 'Hot!', index: 2 },
      },
      expect.objectContaining({ event: 'done' }),
    ]);
    // Before any tool part: all of them, then the text after the offset.
    expect(eventsAfter(stored(), `${replyId}:1:14`).map((event) => event.event)).toEqual([
      'tool_call',
      'tool_result',
      'tool_call',
      'tool_result',
      'chunk',
      'done',
    ]);
  });

  it('ignores malformed stored records, and a stored reply without any reads as before', () => {
    const malformed = storedReply({
      raw_message: {
        text: TEXT,
        toolCalls: [{ toolName: 7 }, records[0], 'x'] as never,
      },
    });
    const events = eventsAfter(ReplyStream.ofStored(malformed));
    expect(events.map((event) => event.event)).toEqual([
      'tool_call',
      'tool_result',
      'chunk',
      'done',
    ]);
    expect(events.at(-1)!.data).toMatchObject({ toolCalls: [records[0]] });
    const plain = eventsAfter(ReplyStream.ofStored(storedReply({ raw_message: { text: TEXT } })));
    expect(plain).toEqual([
      {
        event: 'chunk',
        id: `${replyId}:0:18`,
        data: { messageId: replyId, chunk: TEXT, index: 0 },
      },
      {
        event: 'done',
        id: `${replyId}:end`,
        data: { text: TEXT, actions: ['REPLY'], toolCalls: [] },
      },
    ]);
  });

  it('resumes a stored reply by steps, never losing a result whose order storage did not keep', () => {
    // Live, step 0 called c1 and c2 at once and c2 ended first; step 1 called c3.
    const recorded = [
      { ...records[0]!, step: 0 },
      { ...records[1]!, step: 0 },
      {
        toolCallId: 'c3',
        toolName: 'LOOKUP',
        input: { q: 'again' },
        output: { text: 'still hot' },
        step: 1,
      },
    ];
    const stored = () =>
      ReplyStream.ofStored(
        storedReply({
          raw_message: { text: TEXT, actions: ['LOOKUP', 'REPLY'], toolCalls: recorded },
        }),
      );
    const told = (events: ParsedEvent[]) =>
      events
        .filter((event) => event.event.startsWith('tool_'))
        .map(
          (event) =>
            `${event.event === 'tool_call' ? 'call' : 'result'} ${(event.data as { toolCallId: string }).toolCallId}`,
        );
    expect(told(eventsAfter(stored()))).toEqual([
      'call c1',
      'call c2',
      'result c1',
      'result c2',
      'call c3',
      'result c3',
    ]);
    // Both calls of step 0: exactly what follows.
    expect(told(eventsAfter(stored(), `${replyId}:1:14:2`))).toEqual([
      'result c1',
      'result c2',
      'call c3',
      'result c3',
    ]);
    // The calls and c2's result (it ended first): both results again, c2's twice, none lost.
    const afterOne = eventsAfter(stored(), `${replyId}:1:14:3`);
    expect(told(afterOne)).toEqual(['result c1', 'result c2', 'call c3', 'result c3']);
    expect(afterOne[0]!.id).toBe(`${replyId}:1:14:3`);
    // Past all of step 0: step 1 only.
    expect(told(eventsAfter(stored(), `${replyId}:1:14:4`))).toEqual(['call c3', 'result c3']);
    expect(eventsAfter(stored()).at(-1)!.data).toMatchObject({ toolCalls: recorded });
  });

  it('tells a gap for more tool parts than the reply has, from memory and from storage', () => {
    for (const stream of [live(), ReplyStream.ofStored(storedReply())]) {
      const events = eventsAfter(stream, `${replyId}:3:18:5`);
      expect(events.filter((event) => event.event === 'gap')).toEqual([
        {
          event: 'gap',
          data: expect.objectContaining({ replyId, from: `${replyId}:3:18:5` }),
        },
      ]);
      expect(events.at(-1)!.event).toBe('done');
    }
  });
});
