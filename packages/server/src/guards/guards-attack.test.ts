import { request as httpRequest } from 'node:http';
import { io as connectSocket } from 'socket.io-client';
import { describe, expect, it } from 'vitest';
import { startTestServer } from '../../test/test-server';
import { createClientAddress } from './client-address';

const channel = '3f2504e0-4f89-41d3-9a0c-0305e82c3301';
const history = `/api/messaging/channels/${channel}/messages`;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request over a fresh connection, from `localAddress`, with the headers given (Host included). */
function send(
  url: string,
  path: string,
  options: { headers?: Record<string, string>; localAddress?: string; method?: string } = {},
): Promise<Answer> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: options.method ?? 'GET',
        headers: options.headers,
        localAddress: options.localAddress,
        agent: false,
      },
      (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
        );
      },
    );
    request.on('error', reject);
    request.end();
  });
}

/** A socket.io polling handshake as a browser page would send it. */
function handshake(url: string, headers: Record<string, string>): Promise<Answer> {
  return send(url, '/socket.io/?EIO=4&transport=polling', { headers });
}

describe('DNS rebinding on a server bound beyond loopback without a token', () => {
  it('refuses a foreign Host on a loopback connection, over REST and the socket alike', async () => {
    await using test = await startTestServer({ host: '0.0.0.0' });
    const port = new URL(test.url).port;
    const [rest, socket, own, ownSocket] = await Promise.all([
      send(test.url, history, { headers: { host: `evil.example:${port}` } }),
      handshake(test.url, { host: `evil.example:${port}` }),
      send(test.url, history, { headers: { host: `localhost:${port}` } }),
      handshake(test.url, { host: `localhost:${port}` }),
    ]);
    expect(rest.status).toBe(403);
    expect(rest.body).not.toContain(channel);
    expect(socket.status).toBe(403);
    expect(socket.body).not.toContain('"sid"');
    expect(own.status).toBe(200);
    expect(ownSocket.status).toBe(200);
    expect(ownSocket.body).toContain('"sid"');
  });
});

describe('the socket and foreign pages', () => {
  it('by default accepts every origin, as the interface requires', async () => {
    await using test = await startTestServer();
    const host = `localhost:${new URL(test.url).port}`;
    const answer = await handshake(test.url, { host, origin: 'https://evil.example' });
    expect(answer.body).toContain('"sid"');
  });

  it('without a token and with ALLOWED_ORIGINS, refuses a foreign Origin and serves its own, loopback and listed ones', async () => {
    await using test = await startTestServer({ allowedOrigins: ['https://app.example.com'] });
    const host = `localhost:${new URL(test.url).port}`;
    const [foreign, nullOrigin, own, listed, noOrigin] = await Promise.all([
      handshake(test.url, { host, origin: 'https://evil.example' }),
      handshake(test.url, { host, origin: 'null' }),
      handshake(test.url, { host, origin: `http://${host}` }),
      handshake(test.url, { host, origin: 'https://app.example.com' }),
      handshake(test.url, { host }),
    ]);
    for (const refused of [foreign, nullOrigin]) {
      expect(refused.status).toBe(403);
      expect(refused.body).not.toContain('"sid"');
    }
    for (const served of [own, listed, noOrigin]) expect(served.body).toContain('"sid"');

    // A real client from a foreign page: connect_error, never a connection.
    const client = connectSocket(test.url, {
      transports: ['polling'],
      reconnection: false,
      forceNew: true,
      extraHeaders: { origin: 'https://evil.example' },
    });
    const outcome = await new Promise<string>((resolve) => {
      client.once('connect', () => resolve('connected'));
      client.once('connect_error', () => resolve('refused'));
    });
    client.close();
    expect(outcome).toBe('refused');
  });

  it('with a token, allows any origin (the interface) but still asks for the token', async () => {
    await using test = await startTestServer({ authToken: 'tok' });
    const host = `localhost:${new URL(test.url).port}`;
    const answer = await handshake(test.url, { host, origin: 'https://evil.example' });
    // The transport handshake opens; socket.io's own connect then needs the token (tested in socket tests).
    expect(answer.body).toContain('"sid"');
  });
});

describe('rate limits per client', () => {
  it('gives every token holder a bucket of its own per address: one spending its budget does not starve another', async () => {
    await using test = await startTestServer({
      authToken: 'tok',
      rateLimit: { burst: 3, perSecond: 0.001, limitLoopback: true },
    });
    const from = (localAddress: string) =>
      send(test.url, history, {
        headers: { host: 'localhost', 'x-api-key': 'tok' },
        localAddress,
      });
    const first = await Promise.all(Array.from({ length: 6 }, () => from('127.0.0.2')));
    expect(first.filter((answer) => answer.status === 200)).toHaveLength(3);
    const limited = first.filter((answer) => answer.status === 429);
    expect(limited).toHaveLength(3);
    expect(Number(limited[0]!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const second = await Promise.all(Array.from({ length: 3 }, () => from('127.0.0.3')));
    expect(second.map((answer) => answer.status)).toEqual([200, 200, 200]);
  });

  it('limits readiness, agents and TEE reads, and leaves health free', async () => {
    await using test = await startTestServer({
      rateLimit: { burst: 2, perSecond: 0.001, limitLoopback: true },
    });
    const hit = (path: string, localAddress: string) =>
      send(test.url, path, { headers: { host: 'localhost' }, localAddress });
    for (const [index, path] of ['/api/server/ready', '/api/agents', '/api/tee/status'].entries()) {
      const address = `127.0.1.${index + 1}`;
      const answers = await Promise.all(Array.from({ length: 5 }, () => hit(path, address)));
      expect(answers.filter((answer) => answer.status === 429).length, path).toBe(3);
    }
    const health = await Promise.all(
      Array.from({ length: 5 }, () => hit('/api/server/health', '127.0.1.9')),
    );
    expect(health.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
  });

  it('behind a trusted proxy, keys on the address the proxy appended; a client-written entry gains nothing', async () => {
    await using test = await startTestServer({
      trustProxy: ['127.0.0.1'],
      rateLimit: { burst: 2, perSecond: 0.001 },
    });
    const via = (forwardedFor: string, localAddress = '127.0.0.1') =>
      send(test.url, history, {
        headers: { host: 'localhost', 'x-forwarded-for': forwardedFor },
        localAddress,
      });
    // Through the proxy: the noisy client rotates what it writes, the proxy appends its real address.
    const noisy = await Promise.all(
      Array.from({ length: 5 }, (_, index) => via(`198.51.100.${index}, 203.0.113.7`)),
    );
    expect(noisy.filter((answer) => answer.status === 429)).toHaveLength(3);
    expect((await via('203.0.113.8')).status).toBe(200);
    // A non-address entry is not a client: the request counts against the proxy hop that sent it (forwarded,
    // so not exempt as loopback although the proxy is).
    const junk = await Promise.all(Array.from({ length: 3 }, () => via('not-an-address')));
    expect(junk.map((answer) => answer.status).sort()).toEqual([200, 200, 429]);
    // Not through the proxy: 127.0.0.5 is no trusted proxy, so its own header is ignored, and it is loopback.
    const direct = await via('203.0.113.9', '127.0.0.5');
    expect(direct.status).toBe(200);
  });
});

describe('client address', () => {
  it('walks X-Forwarded-For from the right only through trusted proxies, and groups IPv6 by /64', () => {
    const trusted = createClientAddress(['10.0.0.0/8', 'loopback']);
    expect(trusted('10.1.2.3', '1.1.1.1, 203.0.113.7')).toBe('203.0.113.7');
    expect(trusted('10.1.2.3', '203.0.113.7, 10.9.9.9')).toBe('203.0.113.7');
    expect(trusted('203.0.113.50', '1.1.1.1')).toBe('203.0.113.50');
    expect(trusted('::ffff:127.0.0.1', 'garbage')).toBe('127.0.0.1');
    expect(trusted('10.1.2.3', '1.1.1.1, garbage')).toBe('10.1.2.3');
    expect(trusted('10.1.2.3', undefined)).toBe('10.1.2.3');
    const oneHop = createClientAddress(true);
    expect(oneHop('192.0.2.1', '1.1.1.1, 203.0.113.7')).toBe('203.0.113.7');
    expect(createClientAddress(false)('192.0.2.1', '203.0.113.7')).toBe('192.0.2.1');
    expect(() => createClientAddress(['10.0.0.0/33'])).toThrow(RangeError);
    expect(() => createClientAddress(['proxy.example'])).toThrow(RangeError);
  });
});

describe('framing', () => {
  it('forbids framing the API docs and the built-in endpoints', async () => {
    await using test = await startTestServer();
    for (const path of ['/api/docs', '/api/server/health']) {
      const answer = await send(test.url, path, { headers: { host: 'localhost' } });
      expect(answer.headers['x-frame-options'], path).toBe('DENY');
      expect(String(answer.headers['content-security-policy']), path).toContain(
        "frame-ancestors 'none'",
      );
    }
  });
});
