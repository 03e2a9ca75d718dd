import { startTestServer, type TestServer } from '@parley/plugin-sdk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import plugin from './index.js';

// The SDK's harness: a live Parley server (in memory) with this plugin and one agent, Ada. Starting it (a database,
// its migrations) can outlast vitest's 10 s default on a busy machine: the bound is a minute.
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer(plugin, {
    characters: [{ name: 'Ada', settings: { HELLO_GREETING: 'Good morning' } }],
  });
}, 60_000);
afterAll(() => server?.stop());

describe('PLUGIN_NAME', () => {
  it('SAY_HELLO greets with the agent setting, as the model would call it', async () => {
    const { output } = await server.callAction('SAY_HELLO', { name: 'Grace' });
    expect(output).toMatchObject({
      text: 'Good morning, Grace! (Ada, through PLUGIN_NAME)',
      values: { greeted: 'Grace' },
    });
  });

  it('SAY_HELLO fills in its default, and a bad argument is an error the model is told', async () => {
    expect((await server.callAction('SAY_HELLO', {})).output?.text).toContain(
      'Good morning, world!',
    );
    expect((await server.callAction('SAY_HELLO', { name: '' })).error).toMatch(
      /^Invalid arguments/,
    );
  });

  it('GET /PLUGIN_NAME/hello answers as the agent', async () => {
    const response = await fetch(`${server.url}/PLUGIN_NAME/hello`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ success: true, message: 'Hello from Ada' });
  });
});
