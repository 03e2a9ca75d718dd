import { randomUUID } from 'node:crypto';
import { type AgentRuntime, definePlugin, defineRoute } from '@parley/plugin-sdk';
import { type ParleyServer } from '@parley/server';
import fc from 'fast-check';
import { type Socket, io } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../support/start-server';

// Every REST endpoint and socket event, fed strings with NUL and lone surrogates, deep nesting and extreme
// dates: the answer is a 2xx or a 4xx, never a 5xx, and the socket never acknowledges INTERNAL.

const RUNS = 40;

/** Pieces hostile strings are made of: what PostgreSQL, UTF-8 and JSON each choke on, and ordinary text. */
const fragment = fc.constantFrom(
  '\u0000',
  '\uD800',
  '\uDFFF',
  '\uDBFF\uDFFF',
  '😀',
  '\\u0000',
  'a',
  ' ',
  '',
  '\u202E',
  '%00',
  "'; drop table messages; --",
  '<script>',
);
const hostileString = fc.oneof(
  fc.array(fragment, { maxLength: 8 }).map((parts) => parts.join('')),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom('x'.repeat(100_001), ''),
);

/** A marker replaced by a deeply nested object when the body is written (JSON.stringify would overflow). */
const DEEP = '__deep__';
const deepValue = fc.integer({ min: 30, max: 5_000 }).map((depth) => ({ [DEEP]: depth }));

const jsonValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    hostileString,
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    deepValue,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(hostileString, tie('value'), { maxKeys: 4 }),
  ),
})).value;
const hostileObject = fc.oneof(fc.dictionary(hostileString, jsonValue, { maxKeys: 4 }), deepValue);

const extremeDate = fc.constantFrom<unknown>(
  '2100-02-30T00:00:00Z',
  '+275760-09-13T00:00:00Z',
  '-271821-04-20T00:00:00Z',
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:59.999Z',
  '99999',
  '8.64e15',
  8.64e15,
  -8.64e15,
  '',
  'yesterday',
  '2030-01-01T00:00:00\u0000Z',
);
const uuidish = fc.oneof(
  fc.uuid(),
  hostileString,
  fc.constant('00000000-0000-0000-0000-000000000000'),
);

/**
 * JSON text of a value whose deep markers become objects nested that deep (at most `maxDepth`: the socket
 * client serialises recursively, on the test worker's small stack).
 */
function toJson(value: unknown, maxDepth = 5_000): string {
  return JSON.stringify(value).replace(
    new RegExp(`\\{"${DEEP}":(\\d+)\\}`, 'g'),
    (_match, text: string) => {
      const depth = Math.min(Number(text), maxDepth);
      return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
    },
  );
}

/** Percent-encodes a path segment, lone surrogates included (as the bytes a careless client would send). */
function encodeSegment(value: string): string {
  return Array.from(value)
    .map((character) => {
      try {
        return encodeURIComponent(character);
      } catch {
        const unit = character.charCodeAt(0);
        return [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)]
          .map((byte) => `%${byte.toString(16).toUpperCase()}`)
          .join('');
      }
    })
    .join('');
}

/** Reference routes of the example plugins, reduced to what they hand the runtime. */
function fuzzPlugin() {
  const badRequest = (error: unknown) => (error as { code?: unknown }).code === 'BAD_REQUEST';
  const relay =
    (act: (runtime: AgentRuntime, body: Record<string, unknown>) => Promise<unknown>) =>
    async (
      request: { body: unknown },
      response: { status(code: number): { json(body: unknown): void } },
      runtime: AgentRuntime,
    ) => {
      try {
        await act(runtime, (request.body ?? {}) as Record<string, unknown>);
        response.status(200).json({ success: true });
      } catch (error) {
        if (!badRequest(error)) throw error;
        response.status(400).json({ success: false, error: (error as Error).message });
      }
    };
  return definePlugin({
    name: 'fuzz',
    description: 'hands hostile input to the runtime as the example routes do',
    routes: [
      defineRoute({
        type: 'POST',
        path: '/fuzz/send',
        handler: relay((runtime, body) =>
          runtime.sendMessage({
            channelId: String(body.channelId),
            text: String(body.message),
            metadata: body.metadata as Record<string, unknown>,
          }),
        ),
      }),
      defineRoute({
        type: 'POST',
        path: '/fuzz/schedule',
        handler: relay((runtime, body) =>
          runtime.scheduleMessage({
            channelId: String(body.channelId),
            text: String(body.message),
            sendAt: new Date(body.sendAt as string),
            metadata: body.metadata as Record<string, unknown>,
          }),
        ),
      }),
    ],
  });
}

let server: ParleyServer;
let url: string;
const fiveHundreds: string[] = [];

beforeAll(async () => {
  ({ server, url } = await startServer({
    plugins: [fuzzPlugin()],
    syncTimeoutMs: 10_000,
  }));
});
afterAll(() => server?.stop());

async function call(method: string, path: string, body?: string) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body,
  });
  const text = await response.text();
  if (response.status >= 500) fiveHundreds.push(`${method} ${path} ${response.status} ${text}`);
  return response.status;
}

describe('hostile REST input is never a 5xx', () => {
  it('POST /api/messaging/submit', async () => {
    const body = fc.record(
      {
        channel_id: uuidish,
        server_id: uuidish,
        author_id: hostileString,
        content: hostileString,
        source_type: hostileString,
        raw_message: fc.oneof(
          hostileObject,
          fc.record({ text: hostileString, thought: hostileString }),
        ),
        metadata: hostileObject,
        in_reply_to: uuidish,
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(body, async (value) => {
        expect(await call('POST', '/api/messaging/submit', toJson(value))).toBeLessThan(500);
      }),
      { numRuns: RUNS },
    );
  });

  it('POST /api/messaging/channels/:id/messages in every mode', async () => {
    const body = fc.record(
      {
        text: hostileString,
        entityId: hostileString,
        mode: fc.constantFrom('websocket', 'sync', 'stream', '\u0000'),
        senderName: hostileString,
        metadata: hostileObject,
        agentId: uuidish,
      },
      { requiredKeys: ['text', 'entityId'] },
    );
    await fc.assert(
      fc.asyncProperty(fc.uuid(), body, async (channelId, value) => {
        const path = `/api/messaging/channels/${channelId}/messages`;
        expect(await call('POST', path, toJson(value))).toBeLessThan(500);
      }),
      { numRuns: RUNS },
    );
  });

  it('GET /api/messaging/channels/:id/messages with hostile paths and queries', async () => {
    await fc.assert(
      fc.asyncProperty(uuidish, extremeDate, hostileString, async (channelId, before, limit) => {
        const query = new URLSearchParams({ before: String(before), limit });
        const path = `/api/messaging/channels/${encodeSegment(channelId)}/messages?${query.toString()}`;
        expect(await call('GET', path)).toBeLessThan(500);
      }),
      { numRuns: RUNS },
    );
  });

  it('the read-only endpoints, with hostile query strings', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/api/server/health', '/api/agents', '/api/tee/status', '/api/tee/agents'),
        hostileString,
        async (path, nonce) => {
          const query = new URLSearchParams({ nonce, agentId: nonce });
          expect(await call('GET', `${path}?${query.toString()}`)).toBeLessThan(500);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('plugin routes that hand the input to runtime.sendMessage and runtime.scheduleMessage', async () => {
    const body = fc.record({
      channelId: uuidish,
      message: hostileString,
      metadata: hostileObject,
      sendAt: extremeDate,
    });
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/fuzz/send', '/fuzz/schedule'),
        body,
        async (path, value) => {
          expect(await call('POST', path, toJson(value))).toBeLessThan(500);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('malformed JSON, wrong shapes and wrong types', async () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.constantFrom(
        '[]',
        'null',
        '1',
        '"x"',
        '{"__proto__":{"x":1}}',
        '{"a":1,"a":2}',
        '{'.repeat(10_000),
      ),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(
          '/api/messaging/submit',
          `/api/messaging/channels/${randomUUID()}/messages`,
          '/fuzz/send',
        ),
        text,
        async (path, body) => {
          expect(await call('POST', path, body)).toBeLessThan(500);
        },
      ),
      { numRuns: RUNS },
    );
    expect(fiveHundreds).toEqual([]);
  });
});

describe('hostile socket events never get an INTERNAL answer', () => {
  let socket: Socket;
  const roomId = randomUUID();
  const errors: { code?: string }[] = [];
  const join = { type: 1, payload: { roomId, entityId: 'fuzzer' } };

  beforeAll(async () => {
    socket = io(url, { transports: ['websocket'], reconnection: false });
    socket.on('messageError', (error: { code?: string }) => errors.push(error));
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('connect_error', reject);
    });
    expect(await ackOf('message', join)).toBeUndefined();
  });
  afterAll(() => socket?.disconnect());

  /** Sends with an ack; a RATE_LIMITED answer is a fine answer, INTERNAL is not. */
  async function ackOf(event: string, payload: unknown): Promise<string | undefined> {
    const ack = (await socket.timeout(10_000).emitWithAck(event, payload)) as {
      status: string;
      error?: { code: string };
    };
    return ack.error?.code;
  }

  const payload = fc.record(
    {
      senderId: fc.oneof(fc.constant('fuzzer'), hostileString),
      senderName: hostileString,
      message: hostileString,
      roomId: fc.oneof(fc.constant(roomId), uuidish),
      messageId: uuidish,
      source: hostileString,
      attachments: fc.array(hostileObject, { maxLength: 3 }),
      metadata: hostileObject,
    },
    { requiredKeys: [] },
  );

  it('message (SEND_MESSAGE and other types), typing and leaveRoom', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('message', 'typing', 'leaveRoom'),
        fc.constantFrom(1, 2, 3, 7, -1),
        payload,
        fc.boolean(),
        async (event, type, value, isTyping) => {
          // Socket frames are JSON too: deep markers become deep objects through the same writer.
          const parsed = JSON.parse(toJson(value, 1_000)) as Record<string, unknown>;
          const body =
            event === 'message'
              ? { type, payload: parsed }
              : { ...parsed, userId: parsed.senderId, entityId: parsed.senderId, isTyping };
          if (event === 'typing') {
            // typing takes no acknowledgment: its errors come as messageError, checked below.
            socket.emit(event, body);
            return;
          }
          expect(await ackOf(event, body)).not.toBe('INTERNAL');
          // A leaveRoom that worked leaves the room: join again so that sends keep reaching storage.
          if (event === 'leaveRoom') await ackOf('message', join);
        },
      ),
      { numRuns: RUNS },
    );
    // One more round trip: events on a socket arrive in order, so every messageError is in by now.
    expect(await ackOf('message', join)).not.toBe('INTERNAL');
    expect(errors.filter((error) => error.code === 'INTERNAL')).toEqual([]);
  });
});
