/* eslint-disable @typescript-eslint/no-explicit-any -- answers are read as the wire gives them */
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { ParleyError } from '@parley/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopServer, type LoopFixture } from '../../test/agent-loop-fixture';
import {
  askTool,
  FAST_MCP,
  mcpReadiness,
  memoryLogger,
  waitFor,
} from '../../test/mcp-fixtures/mcp-test-kit';
import { ScriptedModel } from '../../test/scripted-model';
import { startTestServer, type TestServer } from '../../test/test-server';
import { probeMcpServers } from '../mcp/client/probe-mcp-servers';
import { startReceiver, until, type Receiver } from '../webhooks/test-support';

/** The hostile MCP server: repeats its credentials in JSON-RPC errors and on stderr. */
const LEAKY = fileURLToPath(new URL('../../test/mcp-fixtures/leaky-server.mjs', import.meta.url));

/** Every secret value below; none may appear in any answer, log line, model request or webhook. */
const SECRET = {
  serverToken: 'srv-token-5d1f0c2a9e',
  smtpPass: 'smtp-pass-8c2e61',
  passphrase: 'correct horse battery staple',
  dbPassword: 'db-pw-7f3a9b',
  queryKey: 'mcp-query-key-1b2c3d',
  argKey: 'stdio-arg-key-4e5f6a',
  envDbPassword: 'env-db-pw-9a8b7c',
  envToken: 'env-token-2d3e4f5a',
  openai: 'sk-openai-6b7c8d9e',
  hint: 'upstream-hint-3c4d5e6f',
  mcpToken: 'sk-mcp-token-0a1b2c3d',
};
const VALUES = Object.values(SECRET);

function expectNoSecret(text: string, where: string): void {
  for (const value of VALUES) expect(text, `${where} shows ${value}`).not.toContain(value);
}

describe('GET /api/agents/{id}: no secret in clear, wherever the character holds it', () => {
  let test: TestServer;
  const headers = { 'x-api-key': SECRET.serverToken };

  beforeAll(async () => {
    test = await startTestServer({
      authToken: SECRET.serverToken,
      mcp: FAST_MCP,
      characters: [
        {
          name: 'Leaky',
          bio: [`Reachable with ${SECRET.openai}.`],
          system: `Ops may call with ${SECRET.serverToken}.`,
          settings: {
            SMTP_PASS: SECRET.smtpPass,
            PASSPHRASE: SECRET.passphrase,
            smtpHost: 'mail.example.com',
            DATABASE_URL: `postgres://app:${SECRET.dbPassword}@db.internal:5432/app`,
            MAX_TOKENS: 512,
            mcp: {
              servers: {
                web: { type: 'http', url: `http://127.0.0.1:9/mcp?api_key=${SECRET.queryKey}&v=2` },
                local: {
                  type: 'stdio',
                  command: process.execPath,
                  args: [LEAKY, 'call-fails', '--api-key', SECRET.argKey, '--verbose'],
                  env: {
                    DB_URL: `postgres://u:${SECRET.envDbPassword}@h:5432/db`,
                    API_TOKEN: SECRET.envToken,
                  },
                },
              },
            },
          },
          secrets: { OPENAI_API_KEY: SECRET.openai },
        },
      ],
    });
  });
  afterAll(() => test[Symbol.asyncDispose]());

  it('redacts by name, by shape and by value, and keeps the rest readable', async () => {
    const list = await fetch(`${test.url}/api/agents`, { headers });
    const listed = await list.text();
    expectNoSecret(listed, 'the agent list');
    const [agent] = JSON.parse(listed).data.agents as { id: string; bio: string }[];
    expect(agent!.bio).toBe('Reachable with [redacted].');
    const response = await fetch(`${test.url}/api/agents/${agent!.id}`, { headers });
    expect(response.status).toBe(200);
    const text = await response.text();
    expectNoSecret(text, 'the agent view');
    const { data } = JSON.parse(text) as { data: any };
    for (const view of [data, data.character]) {
      expect(view.settings).toMatchObject({
        SMTP_PASS: '[redacted]',
        PASSPHRASE: '[redacted]',
        smtpHost: 'mail.example.com',
        DATABASE_URL: 'postgres://app:[redacted]@db.internal:5432/app',
        MAX_TOKENS: 512,
      });
      expect(view.settings.mcp.servers.web.url).toBe(
        'http://127.0.0.1:9/mcp?api_key=[redacted]&v=2',
      );
      expect(view.settings.mcp.servers.local.args).toEqual([
        LEAKY,
        'call-fails',
        '--api-key',
        '[redacted]',
        '--verbose',
      ]);
      expect(view.settings.mcp.servers.local.env).toEqual({
        DB_URL: 'postgres://u:[redacted]@h:5432/db',
        API_TOKEN: '[redacted]',
      });
      expect(view.secrets).toEqual({ OPENAI_API_KEY: '[redacted]' });
      expect(view.system).toBe('Ops may call with [redacted].');
    }
  });
});

describe('an MCP server whose tool answers a JSON-RPC error repeating its env token', () => {
  let loop: LoopFixture;
  let receiver: Receiver;
  const logs = memoryLogger();

  beforeAll(async () => {
    receiver = await startReceiver(() => ({ status: 200 }));
    loop = await startLoopServer(() => [], {
      logger: logs.logger,
      mcp: FAST_MCP,
      webhooks: { privateTargets: ['127.0.0.1'], pollMs: 20, retryDelaysMs: [30] },
      characters: [
        {
          name: 'Ada',
          settings: {
            mcp: {
              servers: {
                leaky: {
                  type: 'stdio',
                  command: process.execPath,
                  args: [LEAKY, 'call-fails'],
                  env: { API_TOKEN: SECRET.mcpToken },
                },
              },
            },
          },
        },
      ],
    });
    const subscribed = await fetch(`${loop.test.url}/api/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url, events: ['reply.completed', 'message.created'] }),
    });
    expect(subscribed.status).toBe(201);
  });
  afterAll(async () => {
    await loop.test[Symbol.asyncDispose]();
    await receiver.close();
  });

  it('keeps the token out of the reply, the history, the model, the logs and the webhooks', async () => {
    await waitFor(
      async () => (await mcpReadiness(loop.test.url)).mcp?.detail?.startsWith('1 of 1') === true,
      'the leaky server to be connected',
    );
    const channelId = loop.channel();
    const body = await askTool(loop, 'leak', {}, channelId);
    expect(body.success).toBe(true);
    const [call] = body.agentResponse.toolCalls!;
    // The server's words reach the model, without the token: its value and its `NAME=value` both go.
    expect(call!.error).toContain('[redacted]');
    expect(call!.error).toContain('internal error');
    expectNoSecret(JSON.stringify(body), 'the reply');

    const history = await fetch(`${loop.test.url}/api/messaging/channels/${channelId}/messages`);
    expect(history.status).toBe(200);
    const stored = await history.text();
    expect(stored).toContain('[redacted]');
    expectNoSecret(stored, 'the history');

    // The model's next request: the tool's result as it was given back.
    const next = loop.model.requests.at(-1)!;
    expect(next.messages.some((message) => message.role === 'tool')).toBe(true);
    // What a provider sends: the messages and the tools offered (the in-process request also carries the
    // character, for plugins' own model handlers: that never leaves the process).
    expectNoSecret(JSON.stringify([next.messages, next.tools]), "the model's request");

    const delivered = await until(
      () => receiver.received.map((request) => request.body),
      (bodies) => bodies.some((each) => each.includes('reply.completed')),
    );
    expect(delivered.join('\n')).toContain('[redacted]');
    expectNoSecret(delivered.join('\n'), 'the webhooks');
    expectNoSecret(JSON.stringify(logs.lines()), 'the logs');
  });
});

describe('GET /api/server/ready with a token set, and an MCP server whose initialize fails', () => {
  let test: TestServer;
  const logs = memoryLogger();

  beforeAll(async () => {
    test = await startTestServer({
      authToken: SECRET.serverToken,
      logger: logs.logger,
      mcp: FAST_MCP,
      characters: [
        {
          name: 'Secretive',
          settings: {
            mcp: {
              servers: {
                vault: {
                  type: 'stdio',
                  command: process.execPath,
                  args: [LEAKY, 'init-fails'],
                  env: { API_TOKEN: SECRET.mcpToken, UPSTREAM_HINT: SECRET.hint },
                },
              },
            },
          },
        },
      ],
    });
  });
  afterAll(() => test[Symbol.asyncDispose]());

  async function ready(withToken: boolean) {
    const response = await fetch(`${test.url}/api/server/ready`, {
      headers: withToken ? { 'x-api-key': SECRET.serverToken } : {},
    });
    return { status: response.status, text: await response.text() };
  }

  it('says only ready or not without the token; details, redacted, with it', async () => {
    let detailed = await ready(true);
    await waitFor(async () => {
      detailed = await ready(true);
      return detailed.text.includes('upstream refused');
    }, 'the MCP failure to show in readiness');
    expect(detailed.status).toBe(200);
    expectNoSecret(detailed.text, 'detailed readiness');
    const { checks } = (
      JSON.parse(detailed.text) as { data: { checks: { name: string; detail: string }[] } }
    ).data;
    const mcp = checks.find((check) => check.name === 'mcp')!;
    expect(mcp.detail).toContain('Secretive/vault');
    // `Bearer <a credential nobody named>` goes by its shape; `API_TOKEN=` and the bare token by value.
    expect(mcp.detail).toContain('Bearer [redacted]');
    expect(mcp.detail).not.toMatch(/raw [^[]/);

    const [open, wrong] = await Promise.all([
      ready(false),
      fetch(`${test.url}/api/server/ready`, { headers: { 'x-api-key': 'not-the-token' } }).then(
        async (response) => ({ status: response.status, text: await response.text() }),
      ),
    ]);
    for (const answer of [open, wrong]) {
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.text)).toEqual({ success: true, data: { status: 'ready' } });
      expect(answer.text).not.toContain('Secretive');
      expect(answer.text).not.toContain('vault');
    }
    // Liveness stays as it was: open, `ok`.
    const health = await fetch(`${test.url}/api/server/health`);
    expect(health.status).toBe(200);
    expect(((await health.json()) as any).data).toEqual({ status: 'ok' });

    // The server's stderr and its error reached the log: redacted too.
    const lines = JSON.stringify(logs.lines());
    expect(lines).toContain('upstream refused');
    expectNoSecret(lines, 'the logs');
  });
});

describe('a reply that fails with a provider error repeating a credential', () => {
  it('keeps it out of the HTTP answer, the reply.failed webhook and the logs', async () => {
    const receiver = await startReceiver(() => ({ status: 200 }));
    const model = new ScriptedModel();
    const credential = 'sk-provider-4f5e6d7c8b';
    model.behaviour = {
      fail: new ParleyError(
        'MODEL_ERROR',
        `upstream 401 for Authorization: Bearer ${credential} at https://bot:${SECRET.dbPassword}@api.example/v1?key=${SECRET.queryKey}`,
      ),
    };
    const logs = memoryLogger();
    await using test = await startTestServer({
      model,
      logger: logs.logger,
      webhooks: { privateTargets: ['127.0.0.1'], pollMs: 20, retryDelaysMs: [30] },
    });
    try {
      const subscribed = await fetch(`${test.url}/api/webhooks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url: receiver.url, events: ['reply.failed'] }),
      });
      expect(subscribed.status).toBe(201);
      const answer = await fetch(`${test.url}/api/messaging/channels/${randomUUID()}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'hello?', entityId: 'user-1', mode: 'sync' }),
      });
      expect(answer.status).toBe(502);
      const text = await answer.text();
      expect(text).toContain('Bearer [redacted]');
      const [delivered] = await until(
        () => receiver.received,
        (requests) => requests.length >= 1,
      );
      const event = JSON.parse(delivered!.body) as {
        type: string;
        data: { error: { message: string } };
      };
      expect(event.type).toBe('reply.failed');
      // Readable, without the credential: its shape (`Bearer`, a URL's password, `?key=`) gives it away.
      expect(event.data.error.message).toBe(
        'upstream 401 for Authorization: Bearer [redacted] at https://bot:[redacted]@api.example/v1?key=[redacted]',
      );
      for (const where of [text, delivered!.body, JSON.stringify(logs.lines())]) {
        expect(where).not.toContain(credential);
        expectNoSecret(where, 'a failed reply');
      }
    } finally {
      await receiver.close();
    }
  });
});

describe('parley doctor probing an MCP server whose initialize repeats its credentials', () => {
  it('reports why it is down without them', async () => {
    const [result, ...more] = await probeMcpServers([
      {
        name: 'Probed',
        settings: {
          mcp: {
            servers: {
              vault: {
                type: 'stdio',
                command: process.execPath,
                args: [LEAKY, 'init-fails'],
                env: { API_TOKEN: SECRET.mcpToken, UPSTREAM_HINT: SECRET.hint },
              },
            },
          },
        },
      },
    ]);
    expect(more).toEqual([]);
    expect(result).toMatchObject({ agent: 'Probed', server: 'vault', ok: false });
    expect(result!.error).toContain('upstream refused');
    expectNoSecret(result!.error!, 'the probe');
  });
});

describe('an agent created at run time', () => {
  it('has its secrets redacted from errors and logs while it runs', async () => {
    const key = 'rt-provider-key-5e6f7a8b';
    const model = new ScriptedModel();
    model.behaviour = {
      fail: new ParleyError('MODEL_ERROR', `the provider revoked ${key} for this agent`),
    };
    const logs = memoryLogger();
    await using test = await startTestServer({
      model,
      logger: logs.logger,
      agentManagement: { enabled: true, maxAgents: 4, maxCharacterBytes: 4096 },
    });
    const created = await fetch(`${test.url}/api/agents`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ characterJson: { name: 'Runtime', secrets: { PROVIDER: key } } }),
    });
    expect(created.status).toBe(201);
    const { id } = ((await created.json()) as { data: { id: string } }).data;
    const answer = await fetch(`${test.url}/api/messaging/channels/${randomUUID()}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'hi', entityId: 'user-1', agentId: id, mode: 'sync' }),
    });
    expect(answer.status).toBe(502);
    const text = await answer.text();
    expect(text).toContain('the provider revoked [redacted]');
    expect(text).not.toContain(key);
    expect(JSON.stringify(logs.lines())).not.toContain(key);
  });
});
