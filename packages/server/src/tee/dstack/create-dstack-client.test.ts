import { createServer, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ParleyError } from '@parley/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDstackClient } from './create-dstack-client';

interface Recorded {
  method: string | undefined;
  url: string | undefined;
  contentType: string | undefined;
  body: unknown;
}

/** A stand-in for dstack's guest agent on a unix socket: records requests, answers what the test says. */
async function startFakeDstack(
  socketPath: string,
  answer: (url: string) => [number, unknown] | 'hang',
) {
  const requests: Recorded[] = [];
  const server: Server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      requests.push({
        method: request.method,
        url: request.url,
        contentType: request.headers['content-type'],
        body: JSON.parse(text) as unknown,
      });
      const reply = answer(request.url ?? '');
      if (reply === 'hang') return;
      response.writeHead(reply[0], { 'content-type': 'application/json' });
      response.end(JSON.stringify(reply[1]));
    });
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return { requests, [Symbol.asyncDispose]: close };
}

async function rejection(promise: Promise<unknown>): Promise<ParleyError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!ParleyError.isInstance(error))
    throw new Error(`expected a ParleyError, got ${String(error)}`);
  return error;
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parley-dstack-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('createDstackClient over a unix socket', () => {
  it('speaks the dstack SDK protocol for GetKey, GetQuote and Info', async () => {
    const socketPath = join(dir, 'dstack.sock');
    const tcbInfo = JSON.stringify({ mrtd: 'aa' });
    await using fake = await startFakeDstack(socketPath, (url) => {
      if (url === '/GetKey') return [200, { key: 'ab'.repeat(32), signature_chain: ['01', '02'] }];
      if (url === '/GetQuote') return [200, { quote: '0400', event_log: '[]' }];
      return [
        200,
        { app_id: 'app', instance_id: 'inst', app_name: 'n', tcb_info: tcbInfo, extra: 1 },
      ];
    });
    const client = createDstackClient({ endpoint: socketPath });
    expect(await client.getKey({ path: 'wallet/eth', purpose: 'signing' })).toEqual({
      key: 'ab'.repeat(32),
      signature_chain: ['01', '02'],
    });
    expect(await client.getQuote(new Uint8Array([1, 2, 255]))).toEqual({
      quote: '0400',
      event_log: '[]',
    });
    expect(await client.info()).toMatchObject({ app_id: 'app', tcb_info: tcbInfo, extra: 1 });
    expect(fake.requests).toEqual([
      {
        method: 'POST',
        url: '/GetKey',
        contentType: 'application/json',
        body: { path: 'wallet/eth', purpose: 'signing', algorithm: 'secp256k1' },
      },
      {
        method: 'POST',
        url: '/GetQuote',
        contentType: 'application/json',
        body: { report_data: '0102ff' },
      },
      { method: 'POST', url: '/Info', contentType: 'application/json', body: {} },
    ]);
  });

  it('refuses report data over 64 bytes before sending anything', async () => {
    const client = createDstackClient({ endpoint: join(dir, 'unused.sock') });
    expect((await rejection(client.getQuote(new Uint8Array(65)))).code).toBe('BAD_REQUEST');
  });

  it('maps a missing socket and a silent peer to UNAVAILABLE', async () => {
    const missing = createDstackClient({ endpoint: join(dir, 'missing.sock') });
    const error = await rejection(missing.info());
    expect(error.code).toBe('UNAVAILABLE');
    expect(error.message).toContain('socket does not exist');
    const socketPath = join(dir, 'slow.sock');
    await using _fake = await startFakeDstack(socketPath, () => 'hang');
    const slow = createDstackClient({ endpoint: socketPath, timeoutMs: 100 });
    expect((await rejection(slow.info())).message).toMatch(/did not answer in time/);
  });

  it('treats HTTP errors, `error` answers and malformed answers as INTERNAL', async () => {
    const socketPath = join(dir, 'dstack.sock');
    await using _fake = await startFakeDstack(socketPath, (url) => {
      if (url === '/GetKey') return [500, { message: 'boom' }];
      if (url === '/GetQuote') return [200, { error: 'no TDX device' }];
      return [200, { app_id: 5 }];
    });
    const client = createDstackClient({ endpoint: socketPath });
    expect(await rejection(client.getKey({ path: 'p' }))).toMatchObject({ code: 'INTERNAL' });
    expect((await rejection(client.getQuote(new Uint8Array(64)))).message).toContain(
      'no TDX device',
    );
    expect(await rejection(client.info())).toMatchObject({ code: 'INTERNAL' });
  });
});
