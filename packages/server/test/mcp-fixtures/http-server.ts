import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { createFixtureServer } from './fixture-tools.mjs';

/** A fixture MCP server over HTTP: Streamable HTTP at `/mcp`, the older HTTP+SSE at `/sse`. */
export interface HttpMcpServer {
  /** `http://127.0.0.1:<port>`. */
  readonly base: string;
  readonly port: number;
  /** Requests that reached it. */
  readonly requests: number;
  /** Stops listening and drops every connection and session (as a crash would). */
  stop(): Promise<void>;
  /** Listens again on the same port, with no session (as a restarted server). */
  restart(): Promise<void>;
}

/** Starts the fixture server `name` with `tools` (default: every one) on a free port. */
export async function startHttpMcpServer(
  name: string,
  tools?: readonly string[],
): Promise<HttpMcpServer> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const sse = new Map<string, SSEServerTransport>();
  let requests = 0;
  let server: Server | undefined;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    requests += 1;
    const url = new URL(req.url ?? '/', 'http://localhost');
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    if (url.pathname === '/sse' && req.method === 'GET') {
      const transport = new SSEServerTransport('/messages', res);
      sse.set(transport.sessionId, transport);
      await createFixtureServer(name, tools).connect(transport);
      return;
    }
    if (url.pathname === '/messages') {
      const transport = sse.get(url.searchParams.get('sessionId') ?? '');
      if (!transport) return void res.writeHead(404).end();
      return transport.handlePostMessage(req, res, body);
    }
    if (url.pathname !== '/mcp') return void res.writeHead(404).end();
    const sessionId = req.headers['mcp-session-id'];
    const known = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    if (known) return known.handleRequest(req, res, body);
    if (sessionId !== undefined || !isInitializeRequest(body)) {
      return void res.writeHead(404, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          jsonrpc: '2.0',
          error: { code: -32001, message: 'Session not found' },
          id: null,
        }),
      );
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, transport),
    });
    await createFixtureServer(name, tools).connect(transport);
    await transport.handleRequest(req, res, body);
  }

  async function listen(on: number): Promise<number> {
    server = createServer((req, res) => {
      handle(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      });
    });
    await new Promise<void>((resolve) => server!.listen(on, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  }

  const bound = await listen(0);
  return {
    base: `http://127.0.0.1:${bound}`,
    port: bound,
    get requests() {
      return requests;
    },
    async stop() {
      const current = server;
      server = undefined;
      if (!current) return;
      const closed = new Promise((resolve) => current.close(resolve));
      current.closeAllConnections();
      await Promise.allSettled([...sessions.values(), ...sse.values()].map((t) => t.close()));
      sessions.clear();
      sse.clear();
      await closed;
    },
    async restart() {
      if (!server) await listen(bound);
    },
  };
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}
