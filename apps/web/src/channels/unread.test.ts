import { describe, expect, it } from 'vitest';
import { parseTheme } from '../theme';
import { isUnread, markSeen, parseSeen } from './unread';

describe('unread marks', () => {
  const a = '11111111-1111-4111-8111-111111111111';

  it('marks a channel with a message newer than it was seen', () => {
    const seen = markSeen({}, a, '2026-01-01T10:00:00.000Z');
    expect(isUnread(seen, a, '2026-01-01T10:00:00.000Z')).toBe(false);
    expect(isUnread(seen, a, '2026-01-01T10:00:01.000Z')).toBe(true);
    expect(isUnread(seen, a, null)).toBe(false);
    expect(isUnread(seen, a, 'not a date')).toBe(false);
    // Never seen, with a message: news.
    expect(isUnread({}, a, '2026-01-01T10:00:00.000Z')).toBe(true);
  });

  it('never moves back, and keeps at most 200 channels', () => {
    const seen = markSeen({}, a, '2026-01-01T10:00:00.000Z');
    expect(markSeen(seen, a, '2025-01-01T00:00:00.000Z')).toBe(seen);
    let many = {};
    for (let index = 0; index < 250; index += 1) {
      many = markSeen(many, `c${index}`, '2026-01-01T00:00:00.000Z');
    }
    expect(Object.keys(many)).toHaveLength(200);
    expect('c249' in many).toBe(true);
    expect('c0' in many).toBe(false);
  });

  it('reads only well-formed stored entries', () => {
    expect(parseSeen({ [a]: '2026-01-01T10:00:00.000Z', b: 'x', c: 3 })).toEqual({
      [a]: '2026-01-01T10:00:00.000Z',
    });
    expect(parseSeen(null)).toEqual({});
    expect(parseSeen(['x'])).toEqual({});
  });
});

describe('the colour choice', () => {
  it('reads light and dark, anything else is the system', () => {
    expect(parseTheme('light')).toBe('light');
    expect(parseTheme('dark')).toBe('dark');
    for (const other of ['system', 'DARK', '', null, 1]) expect(parseTheme(other)).toBe('system');
  });
});
