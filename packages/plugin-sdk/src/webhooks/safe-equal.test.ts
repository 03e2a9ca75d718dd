import { describe, expect, it } from 'vitest';
import { safeEqual } from './safe-equal';

describe('safeEqual', () => {
  it('compares strings and bytes of any length', () => {
    expect(safeEqual('key', 'key')).toBe(true);
    expect(safeEqual(new TextEncoder().encode('key'), 'key')).toBe(true);
    expect(safeEqual('key', 'key2')).toBe(false);
    expect(safeEqual('', 'key')).toBe(false);
  });

  it('refuses a missing side', () => {
    expect(safeEqual(undefined, 'key')).toBe(false);
    expect(safeEqual('key', null)).toBe(false);
  });
});
