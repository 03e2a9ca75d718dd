import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { Hono } from 'hono';
import type { Logger } from 'pino';
import type { AgentProfile } from '../../agents/agent-profile';
import type { AppEnv } from '../../http/app-env';
import { MCP_PATH } from '../../http/create-app';
import type { MessagingService } from '../../messaging/messaging-service';
import { createAgentMcpServer, type AgentMcpServerOptions } from './agent-mcp-server';
import { agentToolsOf } from './agent-tools';
import { MCP_SESSION_HEADER, RunningCalls, callerOf, newSessionId } from './mcp-callers';

/** Options of {@link mcpRoutes}. */
export interface McpRoutesOptions {
  /** The agents served, each as one tool. */
  agents: readonly AgentProfile[];
  messaging: MessagingService;
  /** How long a tool call waits for the reply before it answers TIMEOUT (the REST `sync` timeout). */
  syncTimeoutMs: number;
}

/** JSON-RPC's code for a body that is not JSON. */
const PARSE_ERROR = -32700;
/** JSON-RPC's code for a message that is not a valid request. */
const INVALID_REQUEST = -32600;
/** The code the SDK's transport gives its own HTTP-level refusals. */
const TRANSPORT_ERROR = -32000;

/** A JSON-RPC error answer with no request id, as the transport gives its own refusals. */
function jsonRpcError(
  status: 400 | 405,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

/** The body as JSON, or undefined when it is not JSON. */
function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

/**
 * `/mcp`: the agents as MCP tools over Streamable HTTP, in the SDK's stateless mode. Each POST gets a server
 * and a transport of its own and nothing outlives the request, so any process behind a load balancer answers
 * any request. The answer to `initialize` names a session (`Mcp-Session-Id`, a random UUID the server keeps
 * nowhere) that the client repeats: it is who the caller is (its entity), and what a `notifications/cancelled`
 * names a call by. A client that hangs up cancels its calls' replies. GET (a stream of server-initiated
 * messages) and DELETE (ending a session) answer 405: there is no stream to hold and no session to end. The
 * guards of `createHttpApp` run first: Host rule, origin guard, the messaging rate budget, body limit, token
 * (`x-api-key` or `Authorization: Bearer`), JSON content type.
 */
export function mcpRoutes(options: McpRoutesOptions): Hono<AppEnv> {
  const tools = agentToolsOf(options.agents);
  const running = new RunningCalls();
  const routes = new Hono<AppEnv>();

  routes.post(MCP_PATH, async (c) => {
    const body = parseJson(await c.req.text());
    if (!body) return jsonRpcError(400, PARSE_ERROR, 'Parse error: Invalid JSON');
    // JSON-RPC: an empty batch is an invalid request (the transport would accept it and answer nothing).
    if (Array.isArray(body.value) && body.value.length === 0) {
      return jsonRpcError(400, INVALID_REQUEST, 'Invalid Request: empty batch');
    }
    const logger: Logger = c.get('logger');
    const caller = callerOf(c.req.header(MCP_SESSION_HEADER));
    const shared: AgentMcpServerOptions = { ...options, tools, running, logger };
    const server = createAgentMcpServer(shared, caller);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
    });
    transport.onerror = (error) => logger.debug({ reason: error.message }, 'MCP request refused');
    await server.connect(transport);
    const request = c.req.raw;
    // The client went away: its calls' handlers abort, which cancels their replies.
    request.signal.addEventListener('abort', () => void server.close(), { once: true });
    const response = await transport.handleRequest(request, { parsedBody: body.value });
    if (response.ok && isInitializeRequest(body.value)) {
      response.headers.set(MCP_SESSION_HEADER, caller.sessionId ?? newSessionId());
    }
    return response;
  });

  const notAllowed = () =>
    jsonRpcError(
      405,
      TRANSPORT_ERROR,
      'Method not allowed: this MCP server is stateless; POST JSON-RPC messages to /mcp',
      { allow: 'POST' },
    );
  routes.get(MCP_PATH, notAllowed);
  routes.delete(MCP_PATH, notAllowed);
  return routes;
}
