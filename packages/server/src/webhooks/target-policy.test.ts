import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { TargetPolicy, TargetRefusedError } from './target-policy';

/** A resolver that answers from a table the test changes between calls. */
function resolverOf(table: Record<string, string[]>) {
  return (
    hostname: string,
    _options: { all: true },
    callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
  ) => {
    const found = table[hostname];
    if (!found) {
      callback(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }), []);
      return;
    }
    callback(
      null,
      found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  };
}

function lookup(policy: TargetPolicy, host: string): Promise<string> {
  return new Promise((resolve, reject) =>
    policy.lookup(host, { all: true }, (error, addresses) =>
      error
        ? reject(error)
        : resolve((addresses as LookupAddress[]).map((entry) => entry.address).join(',')),
    ),
  );
}

describe('TargetPolicy', () => {
  it('refuses every private, loopback, link-local, shared and reserved range, IPv4 and IPv6', async () => {
    const policy = new TargetPolicy();
    for (const address of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '255.255.255.255',
      '224.0.0.1',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'fd12:3456::1',
      '::ffff:10.0.0.1',
      '::ffff:127.0.0.1',
      'ff02::1',
      // IPv4-compatible (judged as the IPv4 address carried), NAT64, SIIT, 6to4 and Teredo.
      '::7f00:1',
      '::127.0.0.1',
      '::a00:1',
      '::a9fe:a9fe',
      '::2',
      '64:ff9b::7f00:1',
      '64:ff9b::808:808',
      '64:ff9b:1::a00:1',
      '::ffff:0:7f00:1',
      '2002:7f00:1::1',
      '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    ]) {
      await expect(lookup(policy, address), address).rejects.toBeInstanceOf(TargetRefusedError);
    }
    expect(await lookup(policy, '93.184.215.14')).toBe('93.184.215.14');
    expect(await lookup(policy, '2606:4700::1111')).toBe('2606:4700::1111');
    expect(await lookup(policy, '::808:808')).toBe('::808:808');
  });

  it('judges IPv4-mapped and -compatible IPv6 by their IPv4 address; translated forms only by their own range', async () => {
    const allowed = new TargetPolicy(['127.0.0.1']);
    expect(await lookup(allowed, '::ffff:7f00:1')).toBe('::ffff:7f00:1');
    expect(await lookup(allowed, '::7f00:1')).toBe('::7f00:1');
    await expect(lookup(allowed, '::7f00:2')).rejects.toThrow(/::7f00:2 is a private/);
    await expect(lookup(allowed, '64:ff9b::7f00:1')).rejects.toThrow(TargetRefusedError);
    const nat64 = new TargetPolicy(['64:ff9b::/96']);
    expect(await lookup(nat64, '64:ff9b::a00:1')).toBe('64:ff9b::a00:1');
    await expect(lookup(nat64, '10.0.0.1')).rejects.toThrow(TargetRefusedError);
  });

  it('refuses a name when one of its addresses is private, and checks again at each lookup (rebinding)', async () => {
    const table: Record<string, string[]> = { 'hooks.example': ['93.184.215.14'] };
    const policy = new TargetPolicy([], resolverOf(table));
    await policy.check(new URL('https://hooks.example/in'));
    table['hooks.example'] = ['93.184.215.14', '10.0.0.7'];
    await expect(lookup(policy, 'hooks.example')).rejects.toThrow(/10\.0\.0\.7/);
    table['hooks.example'] = ['169.254.169.254'];
    await expect(policy.check(new URL('https://hooks.example/in'))).rejects.toThrow(
      /private or reserved/,
    );
  });

  it('allows listed host names, addresses and ranges, and nothing beside them', async () => {
    const table = { 'receiver.internal': ['10.1.2.3'], 'other.internal': ['10.1.2.3'] };
    const policy = new TargetPolicy(
      ['Receiver.Internal', '192.168.10.0/24', '::1'],
      resolverOf(table),
    );
    expect(await lookup(policy, 'receiver.internal')).toBe('10.1.2.3');
    await expect(lookup(policy, 'other.internal')).rejects.toThrow(TargetRefusedError);
    expect(await lookup(policy, '192.168.10.77')).toBe('192.168.10.77');
    await expect(lookup(policy, '192.168.11.1')).rejects.toThrow(TargetRefusedError);
    expect(await lookup(policy, '::1')).toBe('::1');
    await expect(lookup(policy, '127.0.0.1')).rejects.toThrow(TargetRefusedError);
  });

  it('refuses what is not http(s), credentials, and a name that does not resolve', async () => {
    const policy = new TargetPolicy([], resolverOf({}));
    await expect(policy.check(new URL('file:///etc/passwd'))).rejects.toThrow(/http/);
    await expect(policy.check(new URL('https://a:b@93.184.215.14/'))).rejects.toThrow(
      /credentials/,
    );
    await expect(policy.check(new URL('https://nowhere.example/'))).rejects.toThrow();
    expect(() => new TargetPolicy(['10.0.0.0/99'])).toThrow(/CIDR/);
  });
});
