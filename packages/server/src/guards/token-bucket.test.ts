import { describe, expect, it } from 'vitest';
import { KeyedTokenBucket } from './token-bucket';

describe('KeyedTokenBucket', () => {
  it('allows a burst, then one token per 1/perSecond, per key', () => {
    let now = 0;
    const buckets = new KeyedTokenBucket(3, 2, 100, () => now);
    expect([buckets.take('a'), buckets.take('a'), buckets.take('a')]).toEqual([0, 0, 0]);
    expect(buckets.take('a')).toBe(500);
    expect(buckets.take('b')).toBe(0);
    now += 500;
    expect(buckets.take('a')).toBe(0);
    expect(buckets.take('a')).toBe(500);
  });

  it('keeps at most maxKeys buckets, forgetting the least recently used', () => {
    const buckets = new KeyedTokenBucket(1, 1, 2, () => 0);
    buckets.take('a');
    buckets.take('b');
    buckets.take('a');
    buckets.take('c');
    expect(buckets.size).toBe(2);
    // 'b' was forgotten (starts full again); 'a' was kept (still empty).
    expect(buckets.take('b')).toBe(0);
    expect(buckets.take('c')).toBeGreaterThan(0);
  });

  it('refuses nonsense settings', () => {
    expect(() => new KeyedTokenBucket(0, 1)).toThrow(RangeError);
    expect(() => new KeyedTokenBucket(1, 0)).toThrow(RangeError);
  });
});
