import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createPostgresDatabase,
  postgresUnavailableReason,
  type TestDatabase,
} from '../../../test/databases';
import { MCP_TEST_CHARACTERS, MCP_TEST_TOKEN, connectMcp } from '../../../test/mcp-client';
import { ScriptedModel } from '../../../test/scripted-model';
import { startTestServer, type TestServer } from '../../../test/test-server';

/** Calls the REST API with the token; the answer's status and JSON. */
async function rest(url: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: {
      'x-api-key': MCP_TEST_TOKEN,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    json: (text ? JSON.parse(text) : undefined) as { data: { id: string } },
  };
}

/** The names `/mcp` lists. */
async function toolNames(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((tool) => tool.name);
}

/** Calls `name` with a message; the result. */
const callTool = (client: Client, name: string, message: string) =>
  client.callTool({ name, arguments: { message } });

describe('/mcp lists the live agents: created, stopped, started and deleted at run time', () => {
  const model = new ScriptedModel();
  let test: TestServer;
  const clients: Client[] = [];

  beforeAll(async () => {
    test = await startTestServer({
      model,
      characters: MCP_TEST_CHARACTERS,
      authToken: MCP_TEST_TOKEN,
      agentManagement: { enabled: true },
    });
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
  });
  afterAll(async () => {
    await test?.[Symbol.asyncDispose]();
  });

  it('an agent created over REST is listed and answers; stopped or deleted it is gone', async () => {
    const client = await connectMcp(test.url);
    clients.push(client);
    expect(await toolNames(client)).toEqual(['Ada_Lovelace', 'Bob']);

    const created = await rest(test.url, 'POST', '/api/agents', {
      name: 'Carol Ann',
      bio: 'Made at run time.',
    });
    expect(created.status).toBe(201);
    const id = created.json.data.id;
    // The same client, no reconnection: the next listing has the new agent.
    expect(await toolNames(client)).toEqual(['Ada_Lovelace', 'Bob', 'Carol_Ann']);
    const listed = (await client.listTools()).tools.find((tool) => tool.name === 'Carol_Ann');
    expect(listed?.description).toContain('Made at run time.');
    model.behaviour = { reply: 'Carol here.' };
    const answer = await callTool(client, 'Carol_Ann', 'who are you?');
    expect(answer.isError).toBeFalsy();
    expect(answer.structuredContent).toMatchObject({ text: 'Carol here.' });

    expect((await rest(test.url, 'POST', `/api/agents/${id}/stop`)).status).toBe(200);
    expect(await toolNames(client)).toEqual(['Ada_Lovelace', 'Bob']);
    const refused = await callTool(client, 'Carol_Ann', 'still there?');
    expect(refused.isError).toBe(true);

    expect((await rest(test.url, 'POST', `/api/agents/${id}/start`)).status).toBe(200);
    expect(await toolNames(client)).toContain('Carol_Ann');
    expect((await callTool(client, 'Carol_Ann', 'back?')).isError).toBeFalsy();

    expect((await rest(test.url, 'DELETE', `/api/agents/${id}`)).status).toBeLessThan(300);
    expect(await toolNames(client)).toEqual(['Ada_Lovelace', 'Bob']);
    expect((await callTool(client, 'Carol_Ann', 'gone?')).isError).toBe(true);
  });

  it('a configured agent stopped over REST leaves the listing and comes back when started', async () => {
    const client = await connectMcp(test.url);
    clients.push(client);
    const bob = (await rest(test.url, 'GET', '/api/agents')).json.data as unknown as {
      agents: { id: string; name: string }[];
    };
    const id = bob.agents.find((agent) => agent.name === 'Bob')!.id;
    expect((await rest(test.url, 'POST', `/api/agents/${id}/stop`)).status).toBe(200);
    expect(await toolNames(client)).toEqual(['Ada_Lovelace']);
    expect((await callTool(client, 'Bob', 'hi')).isError).toBe(true);
    expect((await rest(test.url, 'POST', `/api/agents/${id}/start`)).status).toBe(200);
    expect(await toolNames(client)).toEqual(['Ada_Lovelace', 'Bob']);
  });

  it('with every agent stopped, the listing is empty and a call is refused, not an error of the protocol', async () => {
    const client = await connectMcp(test.url);
    clients.push(client);
    const { agents } = (await rest(test.url, 'GET', '/api/agents')).json.data as unknown as {
      agents: { id: string }[];
    };
    for (const agent of agents) {
      expect((await rest(test.url, 'POST', `/api/agents/${agent.id}/stop`)).status).toBe(200);
    }
    try {
      expect(await toolNames(client)).toEqual([]);
      expect((await callTool(client, 'Bob', 'anyone?')).isError).toBe(true);
    } finally {
      for (const agent of agents) await rest(test.url, 'POST', `/api/agents/${agent.id}/start`);
    }
    expect(await toolNames(client)).toEqual(['Ada_Lovelace', 'Bob']);
  });
});

const reason = await postgresUnavailableReason();

describe.skipIf(reason !== undefined)('/mcp on another process sharing PostgreSQL', () => {
  const model = new ScriptedModel();
  let database: TestDatabase;
  const servers: TestServer[] = [];
  const clients: Client[] = [];

  beforeAll(async () => {
    database = await createPostgresDatabase();
    for (let index = 0; index < 2; index += 1) {
      servers.push(
        await startTestServer(
          {
            model,
            characters: MCP_TEST_CHARACTERS,
            authToken: MCP_TEST_TOKEN,
            // The poll is far beyond the test: only the notice, or a look on a miss, carries a change.
            agentManagement: { enabled: true, syncIntervalMs: 600_000 },
          },
          database,
        ),
      );
    }
  });
  afterAll(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    // The database is shared: stop the servers, then drop it once.
    for (const test of servers) await test.server.stop();
    await database?.dispose();
  });

  it('an agent created on one process is listed and callable on the other; deleted, it is gone there', async () => {
    const [one, two] = servers as [TestServer, TestServer];
    const client = await connectMcp(two.url);
    clients.push(client);
    const created = await rest(one.url, 'POST', '/api/agents', { name: 'Dora' });
    expect(created.status).toBe(201);
    await expect.poll(() => toolNames(client), { timeout: 10_000 }).toContain('Dora');
    model.behaviour = { reply: 'Dora speaking.' };
    const answer = await callTool(client, 'Dora', 'hello');
    expect(answer.isError).toBeFalsy();
    expect(answer.structuredContent).toMatchObject({ text: 'Dora speaking.' });

    expect(
      (await rest(one.url, 'DELETE', `/api/agents/${created.json.data.id}`)).status,
    ).toBeLessThan(300);
    await expect.poll(() => toolNames(client), { timeout: 10_000 }).not.toContain('Dora');
    expect((await callTool(client, 'Dora', 'still?')).isError).toBe(true);
  });
});
