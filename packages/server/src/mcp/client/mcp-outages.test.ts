import { createServer as createNetServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopServer, weatherAction, type LoopFixture } from '../../../test/agent-loop-fixture';
import { startHttpMcpServer, type HttpMcpServer } from '../../../test/mcp-fixtures/http-server';
import {
  FAST_MCP,
  askTool,
  mcpReadiness,
  memoryLogger,
  offeredTools,
  stdioServer,
  waitFor,
} from '../../../test/mcp-fixtures/mcp-test-kit';
import { parseSse } from '../../../test/sse';

/** A local port nothing listens on. */
async function refusingPort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('MCP servers that are down or die, from outside', () => {
  let loop: LoopFixture;
  let web: HttpMcpServer;
  const log = memoryLogger();
  const detail = async () => (await mcpReadiness(loop.test.url)).mcp?.detail ?? '';
  const warnings = (server: string) =>
    log
      .lines()
      .filter((line) => line.level === 40 && line.msg.startsWith(`MCP server "${server}"`));

  beforeAll(async () => {
    web = await startHttpMcpServer('web', ['add']);
    const refused = await refusingPort();
    loop = await startLoopServer((calls) => [weatherAction(calls)], {
      logger: log.logger,
      characters: [
        {
          name: 'Ada',
          settings: {
            mcp: {
              servers: {
                local: stdioServer('local', ['echo', 'whoami', 'wait']),
                web: { type: 'streamable-http', url: `${web.base}/mcp` },
                dead: {
                  type: 'stdio',
                  command: process.execPath,
                  args: ['-e', 'process.stderr.write("bad config\\n"); process.exit(3)'],
                },
                refused: { type: 'http', url: `http://127.0.0.1:${refused}/mcp` },
                missing: { type: 'stdio', command: '/nonexistent/mcp-server' },
              },
            },
          },
        },
      ],
      mcp: FAST_MCP,
    });
  });
  afterAll(async () => {
    await loop.test[Symbol.asyncDispose]();
    await web.stop();
  });

  it('servers down at start do not stop the agent: it answers, readiness is 200 and names them', async () => {
    const { status, mcp } = await mcpReadiness(loop.test.url);
    expect(status).toBe(200);
    expect(mcp?.ok).toBe(true);
    expect(mcp?.detail).toMatch(/^2 of 5 connected; down: /);
    expect(mcp?.detail).toContain('Ada/refused (ECONNREFUSED)');
    expect(mcp?.detail).toContain('Ada/missing (ENOENT)');
    expect(mcp?.detail).toMatch(/Ada\/dead \(the connection closed\)/);
    const body = await askTool(loop, 'echo', { text: 'still here' });
    expect(body.agentResponse.text).toBe('Done: echo: still here');
    expect(offeredTools(loop)).toEqual(['GET_WEATHER', 'add', 'echo', 'wait', 'whoami']);
  });

  it('an outage is logged once, with the last stderr lines, while it is retried with backoff', async () => {
    const retries = () =>
      log.lines().filter((line) => line.msg === 'MCP server still unreachable').length;
    const before = retries();
    await waitFor(() => retries() >= before + 6, 'retries');
    for (const server of ['dead', 'refused', 'missing']) expect(warnings(server)).toHaveLength(1);
    expect(warnings('dead')[0]).toMatchObject({ stderr: ['bad config'] });
  });

  it('a stdio server killed mid-call: the call gets an error, the agent answers, the server comes back', async () => {
    const pid = Number((await askTool(loop, 'whoami')).agentResponse.text.replace('Done: ', ''));
    expect(alive(pid)).toBe(true);
    loop.model.behaviour = {
      toolCalls: (request) =>
        request.messages.at(-1)?.role === 'user'
          ? [{ toolCallId: 'call_1', toolName: 'wait', input: '{"ms":60000}' }]
          : undefined,
      reply: (request) => `Done: ${String(request.messages.at(-1)?.content)}`,
      plain: true,
    };
    const response = await loop.send(loop.channel(), { text: 'wait', mode: 'stream' });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!text.includes('event: tool_call')) text += (await reader.read()).value ?? '';
    process.kill(pid, 'SIGKILL');
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
      text += chunk.value;
    const events = parseSse(text);
    const result = events.find((event) => event.event === 'tool_result')?.data as {
      error?: string;
    };
    expect(result.error).toMatch(/^MCP server "local"/);
    expect(events.at(-1)?.event).toBe('done');

    expect(warnings('local')).toHaveLength(1);
    await waitFor(async () => (await detail()).startsWith('2 of 5 connected'), 'local back');
    const again = await askTool(loop, 'whoami');
    const newPid = Number(again.agentResponse.text.replace('Done: ', ''));
    expect(newPid).not.toBe(pid);
    expect(alive(pid)).toBe(false);
    expect(log.lines().some((line) => line.msg === 'MCP server "local" is back')).toBe(true);
  });

  it('an HTTP server that stops: its call errors, it is not offered while down, and it is back with the server', async () => {
    await web.stop();
    const failed = await askTool(loop, 'add', { a: 1, b: 2 });
    expect(failed.agentResponse.toolCalls?.[0]?.error).toMatch(/^MCP server "web"/);
    expect(failed.agentResponse.text).toMatch(/^Done: /);
    expect(await detail()).toContain('Ada/web (');
    await askTool(loop, 'echo', { text: 'x' });
    expect(offeredTools(loop)).not.toContain('add');

    await web.restart();
    await waitFor(async () => (await detail()).startsWith('2 of 5 connected'), 'web back');
    expect((await askTool(loop, 'add', { a: 1, b: 2 })).agentResponse.text).toBe('Done: 3');
    expect(warnings('web')).toHaveLength(1);
  });
});

describe('stopping the server', () => {
  it('ends the processes of its stdio servers', async () => {
    const loop = await startLoopServer(() => [], {
      characters: [
        { name: 'Bo', settings: { mcp: { servers: { one: stdioServer('one', ['whoami']) } } } },
      ],
    });
    const pid = Number((await askTool(loop, 'whoami')).agentResponse.text.replace('Done: ', ''));
    expect(alive(pid)).toBe(true);
    await loop.test[Symbol.asyncDispose]();
    expect(alive(pid)).toBe(false);
  });
});
