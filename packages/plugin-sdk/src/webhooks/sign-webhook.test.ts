import { createHmac } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { signWebhook } from './sign-webhook';
import { PARLEY_SIGNATURE_HEADER, PARLEY_TIMESTAMP_HEADER } from './webhook-headers';

describe('signWebhook', () => {
  it('signs "<timestamp>.<body>" with HMAC-SHA256 into the two Parley headers', () => {
    const headers = signWebhook({ rawBody: 'body', secret: 'key', timestamp: 1_700_000_000 });
    const expected = createHmac('sha256', 'key').update('1700000000.body').digest('hex');
    expect(headers).toEqual({
      [PARLEY_SIGNATURE_HEADER]: `v1=${expected}`,
      [PARLEY_TIMESTAMP_HEADER]: '1700000000',
    });
    expect(Object.keys(headers)).toEqual(['x-parley-signature', 'x-parley-timestamp']);
  });

  it('signs bytes the same as their UTF-8 string', () => {
    const fromString = signWebhook({ rawBody: 'héllo', secret: 'key', timestamp: 1 });
    const fromBytes = signWebhook({
      rawBody: new TextEncoder().encode('héllo'),
      secret: 'key',
      timestamp: 1,
    });
    expect(fromBytes).toEqual(fromString);
  });

  it('uses the current time by default', () => {
    vi.useFakeTimers({ now: 1_700_000_123_456 });
    try {
      expect(signWebhook({ rawBody: '', secret: 'key' })['x-parley-timestamp']).toBe('1700000123');
    } finally {
      vi.useRealTimers();
    }
  });

  it('refuses an empty secret and a timestamp that is not whole seconds', () => {
    expect(() => signWebhook({ rawBody: '', secret: '' })).toThrow(TypeError);
    expect(() => signWebhook({ rawBody: '', secret: 'key', timestamp: 1.5 })).toThrow(RangeError);
    expect(() => signWebhook({ rawBody: '', secret: 'key', timestamp: -1 })).toThrow(RangeError);
  });
});
