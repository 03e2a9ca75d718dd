import { describe, expect, it } from 'vitest';
import { addressGroup, isLoopbackAddress, plainAddress } from './client-address';

describe('addresses', () => {
  it('groups IPv6 peers by /64 and keeps IPv4 as is', () => {
    expect(addressGroup('2001:db8:1:2:aaaa::1')).toBe(addressGroup('2001:db8:1:2:ffff:1:2:3'));
    expect(addressGroup('2001:db8:1:2::1')).not.toBe(addressGroup('2001:db8:1:3::1'));
    expect(addressGroup('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressGroup('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressGroup('203.0.113.7')).toBe('203.0.113.7');
  });

  it('reads plain and loopback addresses', () => {
    expect(plainAddress('::ffff:10.0.0.1')).toBe('10.0.0.1');
    expect(plainAddress('[::1]')).toBe('::1');
    expect(plainAddress('evil')).toBeUndefined();
    expect(isLoopbackAddress('127.0.0.9')).toBe(true);
    expect(isLoopbackAddress('::1')).toBe(true);
    expect(isLoopbackAddress('::2')).toBe(false);
  });
});
