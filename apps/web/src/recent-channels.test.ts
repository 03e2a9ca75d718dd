import { describe, expect, it } from 'vitest';
import { isChannelId, parseRecent, rememberChannel } from './recent-channels';

const a = '11111111-1111-4111-8111-111111111111';
const b = '22222222-2222-4222-8222-222222222222';

describe('recent channels', () => {
  it('moves a reopened channel to the front and keeps what was known of it', () => {
    let list = rememberChannel([], { id: a, agentId: 'x', title: 'hello', openedAt: 1 });
    list = rememberChannel(list, { id: b, openedAt: 2 });
    list = rememberChannel(list, { id: a.toUpperCase(), openedAt: 3 });
    expect(list).toEqual([
      { id: a, agentId: 'x', title: 'hello', openedAt: 3 },
      { id: b, openedAt: 2 },
    ]);
  });

  it('keeps at most the limit', () => {
    let list = rememberChannel([], { id: a, openedAt: 1 });
    list = rememberChannel(list, { id: b, openedAt: 2 }, 1);
    expect(list.map((entry) => entry.id)).toEqual([b]);
  });

  it('drops malformed stored entries', () => {
    expect(parseRecent([{ id: a, openedAt: 1 }, { id: 'nope', openedAt: 1 }, null, 5])).toEqual([
      { id: a, openedAt: 1 },
    ]);
    expect(parseRecent('x')).toEqual([]);
  });

  it('recognises channel ids', () => {
    expect(isChannelId(` ${a} `)).toBe(true);
    expect(isChannelId('general')).toBe(false);
  });
});
