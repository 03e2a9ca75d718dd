import { describe, expect, it } from 'vitest';
import { parseSendAt } from './parse-send-at';

describe('parseSendAt', () => {
  it.each([
    '2100-02-30T00:00:00Z',
    '2100-02-30',
    '2100-02-29T09:00:00Z',
    '2030-04-31T09:00:00+02:00',
    '2030-13-01T00:00:00Z',
    '2030-00-10T00:00:00Z',
    '2030-01-00T00:00:00Z',
    '2030-01-32',
  ])('refuses %s, a day the calendar does not have', (value) => {
    expect(parseSendAt(value)).toBeUndefined();
  });

  it('reads real days, leap days of leap years included', () => {
    expect(parseSendAt('2096-02-29T00:00:00Z')?.toISOString()).toBe('2096-02-29T00:00:00.000Z');
    expect(parseSendAt('2000-02-29')?.toISOString()).toBe('2000-02-29T00:00:00.000Z');
    expect(parseSendAt('2030-12-31T23:00:00-05:00')?.toISOString()).toBe(
      '2031-01-01T04:00:00.000Z',
    );
    expect(parseSendAt('+010000-01-31T00:00:00Z')?.getUTCFullYear()).toBe(10000);
    expect(parseSendAt(Date.UTC(2030, 0, 1))?.toISOString()).toBe('2030-01-01T00:00:00.000Z');
  });

  it('refuses what is not a date', () => {
    for (const value of ['', '  ', 'next tuesday-ish', true, null, {}]) {
      expect(parseSendAt(value)).toBeUndefined();
    }
  });
});
