import { defineAction } from '@parley/plugin-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopServer, weatherAction, type LoopFixture } from '../../../test/agent-loop-fixture';
import { startHttpMcpServer, type HttpMcpServer } from '../../../test/mcp-fixtures/http-server';
import { PIXEL_PNG } from '../../../test/mcp-fixtures/fixture-tools.mjs';
import {
  FAST_MCP,
  askTool,
  mcpReadiness,
  offeredTools,
  stdioServer,
  waitFor,
} from '../../../test/mcp-fixtures/mcp-test-kit';
import { parseSse } from '../../../test/sse';

describe('tools of MCP servers, from outside', () => {
  let loop: LoopFixture;
  let web: HttpMcpServer;
  let legacy: HttpMcpServer;

  beforeAll(async () => {
    // In Parley's environment: a stdio server must not see it.
    process.env.PARLEY_MCP_LEAK_CHECK_TOKEN = 'parley-secret-value';
    web = await startHttpMcpServer('web', ['add', 'search', 'wait']);
    legacy = await startHttpMcpServer('legacy', ['hello']);
    loop = await startLoopServer(
      (calls) => [
        weatherAction(calls),
        // An action of a plugin with the name of a stdio tool: the tool is namespaced, the action keeps its name.
        defineAction({
          name: 'whoami',
          description: 'Who the plugin says it is',
          handler: () => ({ success: true, text: 'the plugin' }),
        }),
      ],
      {
        characters: [
          {
            name: 'Ada',
            settings: {
              mcp: {
                servers: {
                  local: stdioServer(
                    'local',
                    ['echo', 'search', 'snapshot', 'fail', 'whoami', 'write_file', 'env', 'grow'],
                    { env: { API_TOKEN: 'sk-mcp-secret-123' } },
                  ),
                  web: { type: 'http', url: `${web.base}/mcp`, timeoutMs: 500 },
                  legacy: { type: 'sse', url: `${legacy.base}/sse` },
                },
                approval: { tools: ['write_file'] },
              },
            },
          },
        ],
        mcp: FAST_MCP,
        approvals: { timeoutMs: 60_000, sweepMs: 100 },
      },
    );
  });
  afterAll(async () => {
    delete process.env.PARLEY_MCP_LEAK_CHECK_TOKEN;
    await loop.test[Symbol.asyncDispose]();
    await web.stop();
    await legacy.stop();
  });

  it('a stdio server: the model calls its tool, offered with the server schema, and answers from its result', async () => {
    const body = await askTool(loop, 'echo', { text: 'hi' });
    expect(body.agentResponse.toolCalls).toEqual([
      {
        toolCallId: 'call_1',
        toolName: 'echo',
        input: { text: 'hi' },
        output: { text: 'echo: hi' },
      },
    ]);
    expect(body.agentResponse.text).toBe('Done: echo: hi');
    const offered = loop.model.requests.find((request) => request.tools)!.tools!;
    expect(offered.find((tool) => tool.name === 'echo')).toEqual({
      name: 'echo',
      description: 'Echoes a text',
      inputSchema: {
        type: 'object',
        properties: { text: { type: 'string' } },
        required: ['text'],
      },
    });
  });

  it('a Streamable HTTP server and an SSE one: their tools answer in a reply, on the stream too', async () => {
    const added = await askTool(loop, 'add', { a: 2, b: 3 });
    expect(added.agentResponse.toolCalls?.[0]).toMatchObject({
      toolName: 'add',
      output: { text: '5' },
    });
    expect(added.agentResponse.text).toBe('Done: 5');
    const hello = await askTool(loop, 'hello');
    expect(hello.agentResponse.toolCalls?.[0]).toMatchObject({
      output: { text: 'hello from legacy' },
    });

    const response = await loop.send(loop.channel(), { text: 'add', mode: 'stream' });
    const events = parseSse(await response.text());
    expect(events.find((event) => event.event === 'tool_result')?.data).toMatchObject({
      toolName: 'hello',
      output: { text: 'hello from legacy' },
    });
  });

  it('names that collide are namespaced by server; the rest keep the tool name', async () => {
    await askTool(loop, 'echo', { text: 'x' });
    expect(offeredTools(loop)).toEqual(
      [
        'GET_WEATHER',
        'whoami',
        'echo',
        'local__search',
        'snapshot',
        'fail',
        'local__whoami',
        'write_file',
        'env',
        'grow',
        'add',
        'web__search',
        'wait',
        'hello',
      ].sort(),
    );
    const fromWeb = await askTool(loop, 'web__search', { query: 'owls' });
    expect(fromWeb.agentResponse.text).toBe('Done: web found owls');
    const fromLocal = await askTool(loop, 'local__search', { query: 'owls' });
    expect(fromLocal.agentResponse.text).toBe('Done: local found owls');
    expect((await askTool(loop, 'whoami')).agentResponse.text).toBe('Done: the plugin');
    expect((await askTool(loop, 'local__whoami')).agentResponse.text).toMatch(/^Done: \d+$/);
  });

  it('an image result: described to the model, posted into the channel as an attachment', async () => {
    const channelId = loop.channel();
    const body = await askTool(loop, 'snapshot', {}, channelId);
    const size = Buffer.from(PIXEL_PNG, 'base64').length;
    const text = `one transparent pixel\n[attachment snapshot-1.png: image/png, ${size} bytes, shown in the channel]`;
    expect(body.agentResponse.toolCalls?.[0]?.output).toEqual({
      text,
      data: {
        attachments: [{ filename: 'snapshot-1.png', mimeType: 'image/png', size, shown: true }],
      },
    });
    // The model was given the text and the attachment's name, not the picture's bytes.
    const given = loop.model.requests.at(-1)!.messages.find((message) => message.role === 'tool');
    expect((JSON.parse(given!.content) as { text: string }).text).toBe(text);
    expect(given?.content).not.toContain(PIXEL_PNG);
    const messages = (await (
      await fetch(`${loop.test.url}/api/messaging/channels/${channelId}/messages`)
    ).json()) as { data: { messages: { content: string; metadata: Record<string, unknown> }[] } };
    const posted = messages.data.messages.find((message) =>
      message.content.startsWith('snapshot:'),
    );
    expect(posted?.metadata.attachments).toEqual([
      {
        filename: 'snapshot-1.png',
        mimeType: 'image/png',
        size,
        url: `data:image/png;base64,${PIXEL_PNG}`,
      },
    ]);
  });

  it('an isError result is a failed call the model sees as an error, and it still answers', async () => {
    const body = await askTool(loop, 'fail');
    expect(body.agentResponse.toolCalls).toEqual([
      { toolCallId: 'call_1', toolName: 'fail', input: {}, error: 'the disk is on fire' },
    ]);
    expect(body.agentResponse.text).toBe('Done: {"error":"the disk is on fire"}');
  });

  it('a call past the server deadline is cut there and the model told', async () => {
    const body = await askTool(loop, 'wait', { ms: 60_000 });
    expect(body.agentResponse.toolCalls?.[0]?.error).toBe('Timed out after 500 ms');
    // The server is still up: the next call answers.
    expect((await askTool(loop, 'add', { a: 1, b: 1 })).agentResponse.text).toBe('Done: 2');
  });

  it('a tool named by the approval policy waits for a person; approved, it runs', async () => {
    loop.model.behaviour = {
      toolCalls: (request) =>
        request.messages.at(-1)?.role === 'user'
          ? [{ toolCallId: 'call_w', toolName: 'write_file', input: '{"path":"/tmp/x"}' }]
          : undefined,
      reply: (request) =>
        `Done: ${request.messages
          .filter((m) => m.role === 'tool')
          .map((m) => m.content)
          .join()}`,
      plain: true,
    };
    const response = await loop.send(loop.channel(), { text: 'write it', mode: 'sync' });
    expect(response.status).toBe(202);
    const paused = (await response.json()) as {
      replyId: string;
      awaitingApproval: { toolName: string; input: unknown }[];
    };
    expect(paused.awaitingApproval).toEqual([
      expect.objectContaining({ toolName: 'write_file', input: { path: '/tmp/x' } }),
    ]);
    const decided = await fetch(
      `${loop.test.url}/api/messaging/replies/${paused.replyId}/approvals`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ toolCallId: 'call_w', approved: true }),
      },
    );
    expect(decided.status).toBe(202);
    const events = parseSse(
      await (await fetch(`${loop.test.url}/api/messaging/replies/${paused.replyId}/events`)).text(),
    );
    expect(events.find((event) => event.event === 'tool_result')?.data).toMatchObject({
      toolName: 'write_file',
      output: { text: 'wrote /tmp/x' },
    });
    // A tool the policy does not name runs at once.
    expect((await askTool(loop, 'echo', { text: 'free' })).agentResponse.text).toBe(
      'Done: echo: free',
    );
  });

  it("a stdio server gets its env, not Parley's environment, and its secrets never show in a result", async () => {
    const body = await askTool(loop, 'env', { name: 'API_TOKEN' });
    const [names, value] = (
      body.agentResponse.toolCalls?.[0]?.output as { text: string }
    ).text.split('|');
    expect(names?.split(',')).toContain('API_TOKEN');
    expect(names?.split(',')).toContain('PATH');
    expect(names).not.toContain('PARLEY_MCP_LEAK_CHECK_TOKEN');
    expect(value).toBe('[redacted]');
    expect(JSON.stringify(body)).not.toContain('sk-mcp-secret-123');
  });

  it('a server whose tool list changes: the new tool is offered and answers', async () => {
    expect((await askTool(loop, 'grow')).agentResponse.text).toBe('Done: grown');
    await waitFor(async () => {
      await askTool(loop, 'echo', { text: 'x' });
      return offeredTools(loop).includes('grown');
    }, 'the new tool');
    expect((await askTool(loop, 'grown')).agentResponse.text).toBe('Done: I am new');
  });

  it('readiness lists the servers, all connected', async () => {
    const { status, mcp } = await mcpReadiness(loop.test.url);
    expect(status).toBe(200);
    expect(mcp).toEqual({ name: 'mcp', ok: true, detail: '3 of 3 connected' });
  });
});
