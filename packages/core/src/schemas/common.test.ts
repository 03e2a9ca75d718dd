import { describe, expect, it } from 'vitest';
import { parseOrThrow } from '../errors/validation';
import { agentMessageSchema } from './agent-message';
import { channelHistoryQuerySchema, channelMessageRequestSchema } from './channel-message';
import {
  MAX_JSON_DEPTH,
  findJsonProblem,
  instantSchema,
  isStorableDate,
  metadataSchema,
  unstorableTextReason,
} from './common';
import { sendMessagePayloadSchema, typingPayloadSchema } from './socket-payloads';

const channelId = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';
const submit = { channel_id: channelId, author_id: 'a', content: 'hi' };

function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let level = 0; level < depth; level += 1) value = { a: value };
  return value;
}

/** The first issue's path and message, as a client would read them. */
function firstIssue(schema: Parameters<typeof parseOrThrow>[0], value: unknown): string {
  try {
    parseOrThrow(schema, value, 'message');
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the value to be refused');
}

describe('unstorableTextReason', () => {
  it('refuses NUL and lone surrogates, keeps real surrogate pairs and other control characters', () => {
    expect(unstorableTextReason('a\u0000b')).toMatch(/NUL/);
    expect(unstorableTextReason('\uD800')).toMatch(/surrogate/);
    expect(unstorableTextReason('x\uDC00')).toMatch(/surrogate/);
    expect(unstorableTextReason('\uDC00\uD800')).toMatch(/surrogate/);
    expect(unstorableTextReason('😀 \u0001\t')).toBeUndefined();
  });
});

describe('strings that PostgreSQL cannot store are 400s naming the field', () => {
  it('content, author_id, source_type', () => {
    expect(firstIssue(agentMessageSchema, { ...submit, content: 'a\u0000' })).toBe(
      'Invalid message: content must not contain NUL (\\u0000)',
    );
    expect(firstIssue(agentMessageSchema, { ...submit, author_id: '\u0000' })).toMatch(
      /^Invalid message: author_id /,
    );
    expect(firstIssue(agentMessageSchema, { ...submit, source_type: 'x\uD83D' })).toMatch(
      /source_type must not contain a lone UTF-16 surrogate/,
    );
  });

  it('metadata keys and values at any depth, attachments and raw_message', () => {
    expect(
      firstIssue(agentMessageSchema, {
        ...submit,
        metadata: { deep: { list: ['ok', 'x\u0000'] } },
      }),
    ).toBe('Invalid message: metadata.deep.list.1 must not contain NUL (\\u0000)');
    expect(firstIssue(agentMessageSchema, { ...submit, metadata: { 'k\u0000': 1 } })).toBe(
      'Invalid message: metadata.k\u0000 key must not contain NUL (\\u0000)',
    );
    expect(
      firstIssue(agentMessageSchema, {
        ...submit,
        metadata: { attachments: [{ filename: 'a\u0000.txt', size: 1, mimeType: 'text/plain' }] },
      }),
    ).toMatch(/metadata\.attachments\.0\.filename must not contain NUL/);
    expect(
      firstIssue(agentMessageSchema, { ...submit, raw_message: { extra: { x: '\uDFFF' } } }),
    ).toMatch(/raw_message\.extra\.x must not contain a lone UTF-16 surrogate/);
    expect(
      firstIssue(channelMessageRequestSchema, {
        text: 'hi',
        entityId: 'u',
        metadata: { '\uD800': 1 },
      }),
    ).toMatch(/metadata/);
  });

  it('socket payloads: message, sender, attachments, metadata, typing', () => {
    const send = { senderId: 'u', senderName: 'U', message: 'hi', roomId: channelId };
    expect(sendMessagePayloadSchema.safeParse(send).success).toBe(true);
    for (const bad of [
      { message: 'a\u0000' },
      { senderId: '\u0000' },
      { senderName: '\uD800' },
      { attachments: [{ filename: '\u0000' }] },
      { metadata: nested(5_000) as Record<string, unknown> },
    ]) {
      expect(sendMessagePayloadSchema.safeParse({ ...send, ...bad }).success).toBe(false);
    }
    expect(
      typingPayloadSchema.safeParse({ roomId: channelId, userId: 'a\u0000', isTyping: true })
        .success,
    ).toBe(false);
  });

  it('over-long strings', () => {
    expect(firstIssue(agentMessageSchema, { ...submit, content: 'x'.repeat(100_001) })).toMatch(
      /^Invalid message: content /,
    );
    expect(firstIssue(agentMessageSchema, { ...submit, author_id: 'x'.repeat(257) })).toMatch(
      /author_id/,
    );
  });
});

describe('metadata bounds', () => {
  it(`accepts ${MAX_JSON_DEPTH} levels and refuses one more, even 5,000 deep, without recursing that far`, () => {
    expect(metadataSchema.safeParse(nested(MAX_JSON_DEPTH)).success).toBe(true);
    expect(metadataSchema.safeParse(nested(MAX_JSON_DEPTH + 1)).success).toBe(false);
    const problem = findJsonProblem(nested(5_000));
    expect(problem?.message).toMatch(/nested at most 32 levels/);
    expect(problem?.path).toHaveLength(MAX_JSON_DEPTH);
  });

  it('refuses metadata over the size bound, non-finite numbers and non-JSON values', () => {
    expect(metadataSchema.safeParse({ big: 'x'.repeat(300 * 1024) }).success).toBe(false);
    expect(
      metadataSchema.safeParse({ many: Array.from({ length: 40_000 }, () => 'abcdefgh') }).success,
    ).toBe(false);
    expect(findJsonProblem({ n: Number.NaN })?.message).toMatch(/finite/);
    expect(findJsonProblem({ f: () => 1 })?.message).toMatch(/JSON/);
    expect(findJsonProblem({ ok: [1, true, null, 'x', { y: 2 }] })).toBeUndefined();
  });
});

describe('dates are read strictly and stay in the years 1 to 9999', () => {
  it.each([
    '2100-02-30T00:00:00Z',
    '2100-02-29T00:00:00Z',
    '0000-01-01T00:00:00Z',
    '0001-01-01T00:30:00+01:00',
    '+275760-09-13T00:00:00Z',
    '8.64e15',
    '99999',
    '2030-01-01',
    '2030-01-01T00:00:00',
    'yesterday',
  ])('refuses %s', (value) => {
    expect(instantSchema.safeParse(value).success).toBe(false);
    expect(channelHistoryQuerySchema.safeParse({ before: value }).success).toBe(false);
  });

  it('names the field', () => {
    expect(firstIssue(channelHistoryQuerySchema, { before: '0000-01-01T00:00:00Z' })).toBe(
      'Invalid message: before must be a date in the years 1 to 9999',
    );
  });

  it.each([
    '2024-02-29T00:00:00Z',
    '0001-01-01T00:00:00Z',
    '9999-12-31T23:59:59.999Z',
    '2030-01-01T09:00:00+02:00',
  ])('accepts %s', (value) => {
    expect(instantSchema.parse(value)).toBe(value);
  });

  it('isStorableDate checks validity and the year range', () => {
    expect(isStorableDate(new Date('2030-01-01T00:00:00Z'))).toBe(true);
    expect(isStorableDate(new Date(Number.NaN))).toBe(false);
    expect(isStorableDate(new Date(8.64e15))).toBe(false);
    expect(isStorableDate(new Date('10000-01-01T00:00:00Z'))).toBe(false);
    expect(isStorableDate(new Date('-000001-01-01T00:00:00Z'))).toBe(false);
  });
});
