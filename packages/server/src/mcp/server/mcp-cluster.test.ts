import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPostgresDatabase,
  postgresUnavailableReason,
  type TestDatabase,
} from '../../../test/databases';
import {
  type AgentAnswer,
  MCP_TEST_CHARACTERS,
  MCP_TEST_TOKEN,
  lastText,
} from '../../../test/mcp-client';
import { ScriptedModel } from '../../../test/scripted-model';
import { createServer, type ParleyServer } from '../../create-server';
import { createLogger } from '../../logger';

const postgresReason = await postgresUnavailableReason();
if (postgresReason) {
  // Printed on purpose: a silent skip would hide an untested promise.
  // eslint-disable-next-line no-console
  console.warn(`skipping MCP across processes: ${postgresReason}`);
}

/*
 * Two processes on one PostgreSQL database behind a round-robin balancer without stickiness: every request of
 * one SDK client goes to the other process than the one before, `initialize` included.
 */
describe.skipIf(postgresReason !== undefined)('MCP across two processes', () => {
  const model = new ScriptedModel();
  let database: TestDatabase;
  let servers: ParleyServer[];
  let urls: string[];
  const hits: string[] = [];

  beforeAll(async () => {
    database = await createPostgresDatabase();
    servers = [0, 1].map(() =>
      createServer({
        port: 0,
        logger: createLogger('silent'),
        env: {},
        model,
        characters: MCP_TEST_CHARACTERS,
        authToken: MCP_TEST_TOKEN,
        database: database.location,
      }),
    );
    urls = [];
    for (const server of servers) urls.push((await server.start()).url);
  });
  afterAll(async () => {
    await Promise.all((servers ?? []).map((server) => server.stop()));
    await database?.dispose();
  });

  /** An SDK client whose requests take turns between the two processes. */
  async function balancedClient(): Promise<Client> {
    let next = 0;
    const transport = new StreamableHTTPClientTransport(new URL('/mcp', urls[0]), {
      requestInit: { headers: { 'x-api-key': MCP_TEST_TOKEN } },
      fetch: (_url, init) => {
        const base = urls[next++ % urls.length]!;
        hits.push(base);
        return fetch(new URL('/mcp', base), init);
      },
    });
    const client = new Client({ name: 'balanced', version: '1.0.0' });
    await client.connect(transport);
    return client;
  }

  it('serves one client whose requests alternate between the processes', async () => {
    model.behaviour = { reply: (request) => `Echo ${lastText(request)}` };
    const client = await balancedClient();
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual([
        'Ada_Lovelace',
        'Bob',
      ]);
      const first = (await client.callTool({ name: 'Bob', arguments: { message: 'one' } }))
        .structuredContent as AgentAnswer;
      // The same conversation, continued on the other process.
      const second = (
        await client.callTool({
          name: 'Bob',
          arguments: { message: 'two', channelId: first.channelId },
        })
      ).structuredContent as AgentAnswer;
      expect(second).toMatchObject({ channelId: first.channelId, text: 'Echo two' });
      expect(model.requests.at(-1)!.messages.map((message) => message.content)).toEqual(
        expect.arrayContaining(['one', 'Echo one', 'two']),
      );
      expect(new Set(hits)).toEqual(new Set(urls));

      // Calls released together, spread over both processes, each answered.
      const messages = Array.from({ length: 10 }, (_, n) => `together ${n}`);
      const results = await Promise.all(
        messages.map((message) =>
          client.callTool({ name: 'Ada_Lovelace', arguments: { message } }),
        ),
      );
      expect(results.filter((result) => result.isError)).toEqual([]);
      expect(results.map((result) => (result.structuredContent as AgentAnswer).text)).toEqual(
        messages.map((message) => `Echo ${message}`),
      );
    } finally {
      await client.close();
    }
  });
});
