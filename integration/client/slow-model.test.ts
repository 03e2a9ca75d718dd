import { randomUUID } from 'node:crypto';
import { ParleyClientError, createParleyClient } from '@parley/client';
import type { ModelProvider, ModelRequest } from '@parley/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestServer, startServer } from '../support/start-server';

/**
 * A model that starts a reply and then waits until its request is aborted, as a stuck upstream would. Each
 * abort is reported, so a test can see that the server stopped generating.
 */
function createStuckModel() {
  const aborts: ((reason: unknown) => void)[] = [];
  const model: ModelProvider = {
    name: 'stuck',
    callsTools: false,
    async *stream(request: ModelRequest) {
      yield {
        type: 'text-delta',
        delta: '<response><thought>wait</thought><actions>REPLY</actions><text>Let me think',
      };
      await new Promise<never>((_, reject) => {
        request.signal?.addEventListener('abort', () => {
          aborts.shift()?.(request.signal?.reason);
          reject(request.signal?.reason as Error);
        });
      });
    },
  };
  const nextAbort = () => new Promise<unknown>((resolve) => aborts.push(resolve));
  return { model, nextAbort };
}

const stuck = createStuckModel();
let running: TestServer;
let client: ReturnType<typeof createParleyClient>;

beforeAll(async () => {
  running = await startServer({ model: stuck.model, syncTimeoutMs: 300 });
  client = createParleyClient({ baseUrl: running.url });
});
afterAll(() => running?.server.stop());

describe('a slow model', () => {
  it('makes sync mode fail with 504 TIMEOUT, retryable', async () => {
    const error: unknown = await client
      .sendMessage(randomUUID(), { text: 'hi', entityId: 'u', mode: 'sync' })
      .catch((reason: unknown) => reason);
    expect(ParleyClientError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 504, code: 'TIMEOUT', retryable: true });
  });

  it('can be aborted mid-stream: the iteration throws ABORTED (the server still finishes the reply)', async () => {
    const controller = new AbortController();
    const seen: string[] = [];
    const error: unknown = await (async () => {
      const stream = client.sendMessage(
        randomUUID(),
        { text: 'hi', entityId: 'u', mode: 'stream' },
        { signal: controller.signal },
      );
      for await (const event of stream) {
        seen.push(event.event);
        if (event.event === 'chunk') controller.abort();
      }
    })().catch((reason: unknown) => reason);

    expect(seen[0]).toBe('user_message');
    expect(seen).not.toContain('done');
    expect(error).toMatchObject({ status: 0, code: 'ABORTED', retryable: false });
  });

  it('gives TIMEOUT (status 0) when the client gives up first', async () => {
    const error: unknown = await client
      .sendMessage(randomUUID(), { text: 'hi', entityId: 'u', mode: 'sync' }, { timeout: 100 })
      .catch((reason: unknown) => reason);
    expect(error).toMatchObject({ status: 0, code: 'TIMEOUT' });
  });
});
