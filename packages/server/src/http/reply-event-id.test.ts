import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type ReplyPosition, parseEventId, toEventId } from './reply-event-id';

/** A small seeded generator (mulberry32): the same cases on every run, many of them. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const MAX = 999_999_999;

describe('reply event ids', () => {
  const replyId = '5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f';

  it('write three fields until a tool part was sent, four after, and end as :end', () => {
    expect(toEventId({ replyId, kind: 'text', index: -1, offset: 0, tools: 0 })).toBe(
      `${replyId}:-1:0`,
    );
    expect(toEventId({ replyId, kind: 'text', index: 3, offset: 17, tools: 0 })).toBe(
      `${replyId}:3:17`,
    );
    expect(toEventId({ replyId, kind: 'text', index: -1, offset: 0, tools: 2 })).toBe(
      `${replyId}:-1:0:2`,
    );
    expect(toEventId({ replyId, kind: 'end' })).toBe(`${replyId}:end`);
    expect(parseEventId(`${replyId}:4:20:3`)).toEqual({
      replyId,
      kind: 'text',
      index: 4,
      offset: 20,
      tools: 3,
    });
    expect(parseEventId(`${replyId.toUpperCase()}:4:20`)).toEqual({
      replyId,
      kind: 'text',
      index: 4,
      offset: 20,
      tools: 0,
    });
  });

  it('round-trip: every position reads back as itself, and every id it writes is written again alike', () => {
    const next = random(20_250_101);
    const count = () => Math.floor(next() ** 4 * MAX); // mostly small, sometimes up to the bound
    const edge = [0, 1, MAX];
    for (let i = 0; i < 5000; i += 1) {
      const pick = (value: number) => (next() < 0.1 ? edge[Math.floor(next() * 3)]! : value);
      const position: ReplyPosition =
        next() < 0.05
          ? { replyId: randomUUID(), kind: 'end' }
          : {
              replyId: randomUUID(),
              kind: 'text',
              index: next() < 0.2 ? -1 : pick(count()),
              offset: pick(count()),
              tools: next() < 0.4 ? 0 : pick(count()),
            };
      const id = toEventId(position);
      expect(parseEventId(id)).toEqual(position);
      expect(toEventId(parseEventId(id)!)).toBe(id);
      expect(id.split(':')).toHaveLength(position.kind === 'end' ? 2 : position.tools > 0 ? 4 : 3);
    }
  });

  it('refuses what the server never writes', () => {
    const refused = [
      undefined,
      '',
      'nope',
      `${replyId}`,
      `${replyId}:`,
      `${replyId}:1`,
      `${replyId}:end:0`,
      `${replyId}:end:0:1`,
      `${replyId}:1:-1`,
      `${replyId}:-2:0`,
      `${replyId}:01:0`,
      `${replyId}:1:0x1`,
      `${replyId}:1:2:0`, // the tool count is only written from 1 on
      `${replyId}:1:2:-1`,
      `${replyId}:1:2:-3`,
      `${replyId}:1:2:+3`,
      `${replyId}:1:2:03`,
      `${replyId}:1:2:3.0`,
      `${replyId}:1:2:x`,
      `${replyId}:1:2:`,
      `${replyId}:1:2: 3`,
      `${replyId}:1:2:1e3`,
      `${replyId}:1:2:${MAX + 1}`,
      `${replyId}:1:2:3:4`,
      `${replyId}:1:2:3:`,
      `not-a-uuid:1:2:3`,
    ];
    for (const id of refused) expect(parseEventId(id), String(id)).toBeUndefined();
  });
});
