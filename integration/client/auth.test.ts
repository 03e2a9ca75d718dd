import { ParleyClientError, connectSocket, createParleyClient } from '@parley/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextEvent } from './events';
import { type TestServer, startServer } from '../support/start-server';

const token = 'integration-secret';
let running: TestServer;

beforeAll(async () => {
  running = await startServer({ authToken: token });
});
afterAll(() => running?.server.stop());

describe('a server with SERVER_AUTH_TOKEN', () => {
  it('answers 401 UNAUTHORIZED without the key or with a wrong one', async () => {
    for (const apiKey of [undefined, 'wrong']) {
      const client = createParleyClient({ baseUrl: running.url, apiKey });
      const error: unknown = await client.listAgents().catch((reason: unknown) => reason);
      expect(ParleyClientError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ status: 401, code: 'UNAUTHORIZED', retryable: false });
    }
  });

  it('serves REST calls with the key', async () => {
    const client = createParleyClient({ baseUrl: running.url, apiKey: token });
    await expect(client.health()).resolves.toEqual({ status: 'ok' });
  });

  it('refuses a socket without the key and accepts one with it', async () => {
    const refused = connectSocket({ baseUrl: running.url });
    const failure = await nextEvent(refused.onConnectionChange);
    refused.disconnect();
    expect(failure).toMatchObject({
      status: 'failed',
      error: { status: 401, code: 'UNAUTHORIZED' },
    });

    const accepted = connectSocket({ baseUrl: running.url, apiKey: token });
    const state = await nextEvent(accepted.onConnectionChange);
    accepted.disconnect();
    expect(state).toEqual({ status: 'connected', rejoined: [] });
  });
});
