import { describe, expect, it } from 'vitest';
import { SIMULATOR_AGENTS_RESPONSE } from './test-fixtures/simulator-agents-response';
import { createTeeClient } from './tee-client';

function fakeFetch(status: number, body: unknown) {
  const calls: { url: string; headers: Record<string, string> }[] = [];
  const fetch = (url: string, init: { headers: Record<string, string> }) => {
    calls.push({ url, headers: init.headers });
    return Promise.resolve(new Response(JSON.stringify(body), { status }));
  };
  // The client only ever passes a string URL and a plain headers object.
  return { calls, fetch: fetch as unknown as typeof globalThis.fetch };
}

describe('createTeeClient', () => {
  it('reads the status', async () => {
    const { fetch, calls } = fakeFetch(200, {
      status: 'active',
      tee_enabled: true,
      vendor: 'phala',
    });
    const client = createTeeClient({ baseUrl: 'http://tee.example/', apiKey: 'k', fetch });
    expect(await client.status()).toEqual({ status: 'active', tee_enabled: true, vendor: 'phala' });
    expect(calls).toEqual([
      { url: 'http://tee.example/api/tee/status', headers: { 'x-api-key': 'k' } },
    ]);
  });

  it('reads the agents with an encoded nonce, and without one', async () => {
    const { fetch, calls } = fakeFetch(200, SIMULATOR_AGENTS_RESPONSE);
    const client = createTeeClient({ baseUrl: 'http://tee.example', fetch });
    expect(await client.agents('a b&c')).toEqual(SIMULATOR_AGENTS_RESPONSE);
    await client.agents();
    expect(calls.map(({ url }) => url)).toEqual([
      'http://tee.example/api/tee/agents?nonce=a%20b%26c',
      'http://tee.example/api/tee/agents',
    ]);
  });

  it('fails on an HTTP error or a body that is not the SPEC shape', async () => {
    const client = createTeeClient({ baseUrl: 'http://x', fetch: fakeFetch(503, {}).fetch });
    await expect(client.agents()).rejects.toThrow(/HTTP 503/);
    const odd = createTeeClient({
      baseUrl: 'http://x',
      fetch: fakeFetch(200, { agents: 1 }).fetch,
    });
    await expect(odd.agents()).rejects.toThrow();
  });
});
