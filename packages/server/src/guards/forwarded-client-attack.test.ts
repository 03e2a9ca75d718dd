import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { startTestServer } from '../../test/test-server';
import { createClientOrigin } from './client-address';

/**
 * What a client behind a trusted proxy can make the proxy say in `X-Forwarded-For`, attacked over real
 * connections: the test connects from 127.0.0.1, the listed proxy, and writes the last entry as a proxy that
 * passes it on would. A forwarded loopback address is no reason to skip the limits, and an entry that is not a
 * client address is no client key: it counts against the proxy that sent it.
 */

const history = '/api/messaging/channels/3f2504e0-4f89-41d3-9a0c-0305e82c3301/messages';

/** One request over a fresh connection from `localAddress`, with `X-Forwarded-For` when given; its status. */
function send(url: string, forwardedFor: string | undefined, localAddress = '127.0.0.1') {
  const { port } = new URL(url);
  const headers: Record<string, string> = { host: 'localhost' };
  if (forwardedFor !== undefined) headers['x-forwarded-for'] = forwardedFor;
  return new Promise<number>((resolve, reject) => {
    const request = httpRequest(
      { host: '127.0.0.1', port, path: history, headers, localAddress, agent: false },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.on('error', reject);
    request.end();
  });
}

const statuses = (answers: number[]) => ({
  served: answers.filter((status) => status === 200).length,
  limited: answers.filter((status) => status === 429).length,
});

async function startBehindProxy() {
  return startTestServer({
    trustProxy: ['127.0.0.1'],
    rateLimit: { burst: 2, perSecond: 0.001 },
  });
}

describe('rate limits behind a trusted proxy', () => {
  it.each(['127.0.0.1', '::1', '::ffff:127.0.0.1', '127.8.9.10', '[::1]'])(
    'limits a client the proxy names as loopback (%s): 6 at once, 2 served',
    async (loopback) => {
      await using test = await startBehindProxy();
      const answers = await Promise.all(Array.from({ length: 6 }, () => send(test.url, loopback)));
      expect(statuses(answers)).toEqual({ served: 2, limited: 4 });
    },
  );

  it('counts entries that are not client addresses against the proxy: rotating them gains nothing', async () => {
    await using test = await startBehindProxy();
    const junk = [
      'not-an-address',
      'unknown',
      '_hidden',
      '',
      ' ',
      '1.2.3.4:80',
      '[::1]:80',
      'fe80::1%eth0',
      '::1%lo',
      '0.0.0.0',
      '::',
      '224.0.0.1',
      '255.255.255.255',
      '127.1',
      '0x7f.0.0.1',
    ];
    const answers = await Promise.all(junk.map((entry) => send(test.url, entry)));
    expect(statuses(answers)).toEqual({ served: 2, limited: junk.length - 2 });
    // A real client through the same proxy has its own budget, untouched.
    expect(await send(test.url, '203.0.113.8')).toBe(200);
  });

  it("still exempts the machine's own connections: a loopback peer that is no listed proxy, or the proxy saying nothing", async () => {
    await using test = await startBehindProxy();
    // 127.0.0.5 is not the listed proxy: its header is not read, and it is loopback itself.
    const direct = await Promise.all(
      Array.from({ length: 5 }, () => send(test.url, '127.0.0.1', '127.0.0.5')),
    );
    expect(statuses(direct)).toEqual({ served: 5, limited: 0 });
    const unforwarded = await Promise.all(
      Array.from({ length: 5 }, () => send(test.url, undefined)),
    );
    expect(statuses(unforwarded)).toEqual({ served: 5, limited: 0 });
  });
});

describe('the client of a request', () => {
  it('says when a trusted proxy named it, and takes no zone, port or unspecified address as a client', () => {
    const origin = createClientOrigin(['10.0.0.0/8']);
    expect(origin('10.1.2.3', '127.0.0.1')).toEqual({ address: '127.0.0.1', proxied: true });
    expect(origin('10.1.2.3', 'fe80::1%eth0')).toEqual({ address: '10.1.2.3', proxied: true });
    expect(origin('10.1.2.3', '0.0.0.0')).toEqual({ address: '10.1.2.3', proxied: true });
    expect(origin('10.1.2.3', undefined)).toEqual({ address: '10.1.2.3', proxied: false });
    expect(origin('127.0.0.1', '203.0.113.7')).toEqual({ address: '127.0.0.1', proxied: false });
  });
});
