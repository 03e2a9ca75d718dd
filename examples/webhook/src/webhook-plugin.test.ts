import {
  expectStatus,
  fetchRoute,
  runPluginTests,
  startTestServer,
  type TestServer,
} from '@parley/plugin-sdk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookPlugin } from './webhook-plugin';

const API_KEY = 'test-webhook-key';
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer(webhookPlugin, {
    // The second agent has no key: a character's own (empty) setting wins over the shared one.
    characters: [{ name: 'Keeper' }, { name: 'Keyless', settings: { WEBHOOK_API_KEY: '' } }],
    settings: { WEBHOOK_API_KEY: API_KEY },
  });
});
afterAll(() => server?.stop());

function post(path: string, init: { body?: string; headers?: Record<string, string> } = {}) {
  return fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...init.headers },
    body: init.body,
  });
}

describe('POST /webhook', () => {
  it('answers 200 with success and a message for an event with data', async () => {
    const response = await post('/webhook', {
      body: JSON.stringify({ event: 'order.created', data: { id: 7 } }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      success: true,
      message: 'Webhook event "order.created" received',
    });
  });

  it.each([
    ['no event', { data: {} }],
    ['no data', { event: 'order.created' }],
    ['an event that is not a string', { event: 42, data: {} }],
    ['an array', [{ event: 'x', data: 1 }]],
  ])('answers 400 with success false for a body with %s', async (_label, body) => {
    const response = await post('/webhook', { body: JSON.stringify(body) });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ success: false, error: expect.any(String) });
  });

  it('answers 400 for a body that is not JSON', async () => {
    const response = await post('/webhook', {
      body: 'event=order.created',
      headers: { 'content-type': 'text/plain' },
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ success: false, error: expect.any(String) });
  });

  it('answers 400 for malformed JSON (refused by the server before the handler)', async () => {
    const response = await post('/webhook', { body: '{"event": ' });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ success: false });
  });
});

describe('POST /secure/webhook', () => {
  it('answers 401 with success false when x-api-key is absent', async () => {
    const response = await post('/secure/webhook', { body: '{}' });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ success: false, error: expect.any(String) });
  });

  it('answers 401 when x-api-key differs from WEBHOOK_API_KEY', async () => {
    const response = await post('/secure/webhook', {
      body: '{}',
      headers: { 'x-api-key': `${API_KEY}x` },
    });
    expect(response.status).toBe(401);
  });

  it('processes the request when x-api-key equals WEBHOOK_API_KEY, whatever the body', async () => {
    const response = await post('/secure/webhook', {
      body: 'free text',
      headers: { 'x-api-key': API_KEY, 'content-type': 'text/plain' },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ success: true, message: 'Secure webhook processed' });
  });

  it('refuses every key for an agent without WEBHOOK_API_KEY', async () => {
    const keyless = server.agents[1]!;
    const response = await post(`/secure/webhook?agentId=${keyless.agentId}`, {
      body: '{}',
      headers: { 'x-api-key': API_KEY },
    });
    expect(response.status).toBe(401);
  });
});

describe('the plugin’s own suites', () => {
  it('pass against a live server for an agent with and without WEBHOOK_API_KEY', async () => {
    const report = await runPluginTests(webhookPlugin, {
      characters: [{ name: 'Keeper' }, { name: 'Keyless', settings: { WEBHOOK_API_KEY: '' } }],
      settings: { WEBHOOK_API_KEY: API_KEY },
    });
    expect(report.results.filter((result) => !result.ok)).toEqual([]);
    expect(report.passed).toBe(8);
  });
});

describe('runPluginTests', () => {
  it('reports a suite that fails against the live server as a failed result, not a throw', async () => {
    const expectsTeapot = {
      ...webhookPlugin,
      tests: [
        {
          name: 'wrong expectations',
          tests: [
            {
              name: 'expects 418',
              fn: async (runtime: Parameters<typeof fetchRoute>[0]) => {
                await expectStatus(await fetchRoute(runtime, '/webhook', { method: 'POST' }), 418);
              },
            },
            { name: 'passes', fn: () => undefined },
          ],
        },
      ],
    };
    const report = await runPluginTests(expectsTeapot);
    expect(report.passed).toBe(1);
    expect(report.failed).toBe(1);
    expect(report.results[0]).toMatchObject({
      suite: 'wrong expectations',
      test: 'expects 418',
      agent: 'Plugin Test Agent',
      ok: false,
      error: expect.stringMatching(/^expected HTTP 418 from .*\/webhook\?agentId=.*, got 400: /),
    });
  });

  it('rejects with the server’s start-up error when the plugin cannot start', async () => {
    const failing = {
      ...webhookPlugin,
      init: () => {
        throw new Error('missing licence');
      },
    };
    await expect(runPluginTests(failing)).rejects.toThrow(
      'plugin "webhook" failed to start for agent Plugin Test Agent',
    );
  });
});
