/* eslint-disable @typescript-eslint/no-unsafe-call -- the answers are read loosely: each assertion checks their shape */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyPGliteTemplate, type TestDatabase } from '../../test/databases';
import { startTestServer, type TestServer } from '../../test/test-server';
import { createServer } from '../create-server';
import { createLogger } from '../logger';

const SECRET = 'sk-very-secret-value-123';
const FILE_AGENT = {
  name: 'Filed',
  bio: ['From a character file.'],
  settings: { MODEL_TEMPERATURE: 0.2, secrets: { NESTED: SECRET } },
  secrets: { FILE_TOKEN: SECRET },
};
/** Every answer of a test, as text: none may hold a secret. */
const answers: string[] = [];

async function call(url: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  answers.push(text);
  return { status: response.status, json: text ? JSON.parse(text) : undefined };
}

async function converse(url: string, agentId: string, text = 'hello there') {
  return call(url, 'POST', `/api/messaging/channels/${randomUUID()}/messages`, {
    text,
    entityId: 'someone',
    agentId,
    mode: 'sync',
  });
}

afterAll(() => {
  for (const answer of answers) expect(answer).not.toContain(SECRET);
});

describe('agents, management off (the default)', () => {
  let test: TestServer;
  beforeAll(async () => {
    test = await startTestServer({ characters: [FILE_AGENT] });
  });
  afterAll(() => test[Symbol.asyncDispose]());

  it('lists the agents as elizaOS does and shows one with its character, secrets masked', async () => {
    const list = await call(test.url, 'GET', '/api/agents');
    expect(list.status).toBe(200);
    const [agent] = list.json.data.agents;
    expect(agent).toMatchObject({
      name: 'Filed',
      characterName: 'Filed',
      bio: 'From a character file.',
      status: 'active',
    });
    const details = await call(test.url, 'GET', `/api/agents/${agent.id}`);
    expect(details.status).toBe(200);
    expect(details.json.data).toMatchObject({
      id: agent.id,
      name: 'Filed',
      status: 'active',
      enabled: true,
      source: 'configuration',
      secrets: { FILE_TOKEN: '[redacted]' },
      settings: { MODEL_TEMPERATURE: 0.2, secrets: '[redacted]' },
      character: { name: 'Filed', secrets: { FILE_TOKEN: '[redacted]' } },
      actions: [],
    });
    expect(typeof details.json.data.createdAt).toBe('number');
  });

  it('refuses every change with 403 naming the setting, before reading the body', async () => {
    const id = (await call(test.url, 'GET', '/api/agents')).json.data.agents[0].id;
    for (const [method, path] of [
      ['POST', '/api/agents'],
      ['PATCH', `/api/agents/${id}`],
      ['POST', `/api/agents/${id}/start`],
      ['POST', `/api/agents/${id}/stop`],
      ['DELETE', `/api/agents/${id}`],
    ] as const) {
      const answer = await call(test.url, method, path, method === 'DELETE' ? undefined : {});
      expect(answer.status, `${method} ${path}`).toBe(403);
      expect(answer.json.error.message).toContain('AGENT_MANAGEMENT=true');
    }
  });

  it('answers 400 for a bad id and 404 for an unknown agent', async () => {
    expect((await call(test.url, 'GET', '/api/agents/not-a-uuid')).status).toBe(400);
    const unknown = await call(test.url, 'GET', `/api/agents/${randomUUID()}`);
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe('NOT_FOUND');
  });
});

describe('agents, management on', () => {
  let test: TestServer;
  beforeAll(async () => {
    test = await startTestServer({
      characters: [FILE_AGENT],
      agentManagement: { enabled: true, maxAgents: 2, maxCharacterBytes: 4096 },
    });
  });
  afterAll(() => test[Symbol.asyncDispose]());

  it('creates an agent from a character JSON that answers, secrets never shown', async () => {
    const created = await call(test.url, 'POST', '/api/agents', {
      characterJson: {
        name: 'Runtime',
        bio: 'Made over HTTP.',
        system: 'Be brief.',
        settings: { API_KEY: SECRET, nested: { token: SECRET, shown: 'yes' } },
        secrets: { OTHER: SECRET },
      },
    });
    expect(created.status).toBe(201);
    expect(created.json.data).toMatchObject({
      name: 'Runtime',
      status: 'active',
      source: 'api',
      settings: { API_KEY: '[redacted]', nested: { token: '[redacted]', shown: 'yes' } },
    });
    const id = created.json.data.id as string;
    const names = (await call(test.url, 'GET', '/api/agents')).json.data.agents.map(
      (agent: { name: string }) => agent.name,
    );
    expect(names).toEqual(['Filed', 'Runtime']);
    const reply = await converse(test.url, id);
    expect(reply.status).toBe(200);
    expect(reply.json.agentResponse.text.length).toBeGreaterThan(0);
  });

  it('checks the character as a character file is checked, and bounds it', async () => {
    const typo = await call(test.url, 'POST', '/api/agents', {
      characterJson: { name: 'T', sytem: 'x' },
    });
    expect(typo.status).toBe(400);
    expect(typo.json.error.message).toContain('did you mean "system"');
    expect(
      (await call(test.url, 'POST', '/api/agents', { characterJson: { name: '' } })).status,
    ).toBe(400);
    expect(
      (await call(test.url, 'POST', '/api/agents', { characterPath: '/etc/passwd' })).status,
    ).toBe(400);
    const mcp = { name: 'M', settings: { mcp: { servers: {} } } };
    expect((await call(test.url, 'POST', '/api/agents', { characterJson: mcp })).status).toBe(400);
    const big = { name: 'Big', system: 'x'.repeat(5000) };
    expect((await call(test.url, 'POST', '/api/agents', { characterJson: big })).status).toBe(413);
    const filed = await call(test.url, 'POST', '/api/agents', { characterJson: FILE_AGENT });
    expect(filed.status).toBe(409);
  });

  it('stops (messages refused with 409), starts, updates and deletes an agent, within the bound', async () => {
    const made = await call(test.url, 'POST', '/api/agents', { name: 'Second', bio: 'two' });
    expect(made.status).toBe(201);
    const id = made.json.data.id as string;
    const third = await call(test.url, 'POST', '/api/agents', { name: 'Third' });
    expect(third.status).toBe(409);
    expect(third.json.error.message).toContain('At most 2');

    const stopped = await call(test.url, 'POST', `/api/agents/${id}/stop`);
    expect(stopped.json.data).toEqual({ id, name: 'Second', status: 'inactive' });
    const refused = await converse(test.url, id);
    expect(refused.status).toBe(409);
    expect(refused.json.error.message).toContain('is stopped');
    expect((await call(test.url, 'GET', `/api/agents/${id}`)).json.data.status).toBe('inactive');
    expect((await call(test.url, 'POST', `/api/agents/${id}/start`)).json.data.status).toBe(
      'active',
    );
    expect((await converse(test.url, id)).status).toBe(200);

    const renamed = await call(test.url, 'PATCH', `/api/agents/${id}`, {
      name: 'Renamed',
      bio: ['b'],
    });
    expect(renamed.status).toBe(200);
    expect(renamed.json.data).toMatchObject({ id, name: 'Renamed', bio: ['b'] });
    expect((await call(test.url, 'PATCH', `/api/agents/${id}`, { sytem: 'x' })).status).toBe(400);
    expect((await call(test.url, 'PATCH', `/api/agents/${id}`, { id: randomUUID() })).status).toBe(
      400,
    );
    const fileId = (await call(test.url, 'GET', '/api/agents')).json.data.agents[0].id;
    expect((await call(test.url, 'PATCH', `/api/agents/${fileId}`, { name: 'X' })).status).toBe(
      409,
    );
    expect((await call(test.url, 'DELETE', `/api/agents/${fileId}`)).status).toBe(409);
    expect(
      (await call(test.url, 'PATCH', `/api/agents/${randomUUID()}`, { name: 'X' })).status,
    ).toBe(404);

    expect((await call(test.url, 'DELETE', `/api/agents/${id}`)).status).toBe(204);
    expect((await call(test.url, 'GET', `/api/agents/${id}`)).status).toBe(404);
    expect((await call(test.url, 'DELETE', `/api/agents/${id}`)).status).toBe(404);
  });

  it('stops an agent of the configuration too', async () => {
    const fileId = (await call(test.url, 'GET', '/api/agents')).json.data.agents[0].id;
    expect((await call(test.url, 'POST', `/api/agents/${fileId}/stop`)).status).toBe(200);
    expect((await converse(test.url, fileId)).status).toBe(409);
    // A channel with no agent named goes to the default agent: stopped, it is refused, not answered by another.
    const channel = await call(
      test.url,
      'POST',
      `/api/messaging/channels/${randomUUID()}/messages`,
      {
        text: 'hi',
        entityId: 'someone',
        mode: 'sync',
      },
    );
    expect(channel.status).toBe(409);
    expect((await call(test.url, 'POST', `/api/agents/${fileId}/start`)).status).toBe(200);
    expect((await converse(test.url, fileId)).status).toBe(200);
  });
});

describe('agents created at run time survive a restart', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await copyPGliteTemplate();
  });
  afterAll(() => database.dispose());

  function server() {
    return createServer({
      port: 0,
      logger: createLogger('silent'),
      env: {},
      database: database.location,
      agentManagement: { enabled: true },
    });
  }

  it('is listed, stopped as it was, and answers once started after the restart', async () => {
    const first = server();
    const { url } = await first.start();
    const id = (await call(url, 'POST', '/api/agents', { name: 'Durable' })).json.data.id as string;
    expect((await call(url, 'POST', `/api/agents/${id}/stop`)).status).toBe(200);
    await first.stop();

    const second = server();
    const again = await second.start();
    try {
      const agent = (await call(again.url, 'GET', '/api/agents')).json.data.agents[1];
      expect(agent).toMatchObject({ id, name: 'Durable', status: 'inactive' });
      expect((await converse(again.url, id)).status).toBe(409);
      expect((await call(again.url, 'POST', `/api/agents/${id}/start`)).status).toBe(200);
      expect((await converse(again.url, id)).status).toBe(200);
    } finally {
      await second.stop();
    }
  });
});
