import { requestPerson } from '../../identity/channel-access';
import { Hono } from 'hono';
import type { Logger } from 'pino';
import { DEFAULTS } from '../../defaults';
import type { AppEnv } from '../../http/app-env';
import { MCP_PATH } from '../../http/create-app';
import type { MessagingService } from '../../messaging/messaging-service';
import type { AgentMcpServerOptions } from './agent-mcp-server';
import { type AgentSource, liveAgentTools } from './agent-tools';
import { MCP_SESSION_HEADER, RunningCalls, callerOf } from './mcp-callers';
import type * as McpExchangeModule from './mcp-exchange';

/** Options of {@link mcpRoutes}. */
export interface McpRoutesOptions {
  /** The agents served, each as one tool: the live registry, read at every request. */
  agents: AgentSource;
  messaging: MessagingService;
  /** How long a tool call waits for the reply before it answers TIMEOUT (the REST `sync` timeout). */
  syncTimeoutMs: number;
  /** Most JSON-RPC messages one POST may batch (default `DEFAULTS.mcpServer.maxBatchMessages`). */
  maxBatchMessages?: number;
}

/** JSON-RPC's code for a body that is not JSON. */
const PARSE_ERROR = -32700;
/** JSON-RPC's code for a message that is not a valid request. */
const INVALID_REQUEST = -32600;
/** The code the SDK's transport gives its own HTTP-level refusals. */
const TRANSPORT_ERROR = -32000;
/** The first MCP version without JSON-RPC batching (its changelog: "Remove support for JSON-RPC batching"). */
const NO_BATCHES_SINCE = '2025-06-18';

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

/** Why a batch is refused before anything in it runs, or undefined when it may run. */
function batchRefusal(
  batch: readonly unknown[],
  protocolVersion: string | undefined,
  maxMessages: number,
): string | undefined {
  // Dates in ISO form compare as strings.
  if (protocolVersion !== undefined && protocolVersion >= NO_BATCHES_SINCE) {
    return `Invalid Request: MCP ${protocolVersion} has no JSON-RPC batches; send one message per POST`;
  }
  if (batch.length > maxMessages) {
    return `Invalid Request: a batch holds at most ${maxMessages} messages`;
  }
  // Two requests with one id cannot both be answered (and each would still start its work).
  const ids = new Set<string>();
  for (const message of batch) {
    const id = (message as { id?: unknown } | null)?.id;
    if (id === undefined || (message as { method?: unknown }).method === undefined) continue;
    const key = JSON.stringify(id);
    if (ids.has(key)) return 'Invalid Request: two requests of the batch have one id';
    ids.add(key);
  }
  return undefined;
}

/** The SDK's half of a request (`mcp-exchange.ts`), imported at the first POST (see {@link mcpRoutes}). */
let exchangeModule: Promise<typeof McpExchangeModule> | undefined;

function loadExchange(): Promise<typeof McpExchangeModule> {
  exchangeModule ??= import('./mcp-exchange').catch((error: unknown) => {
    exchangeModule = undefined;
    throw error;
  });
  return exchangeModule;
}

/**
 * `/mcp`: the agents as MCP tools over Streamable HTTP, in the SDK's stateless mode. Each POST gets a server
 * and a transport of its own and nothing outlives the request, so any process behind a load balancer answers
 * any request. The answer to `initialize` names a session (`Mcp-Session-Id`, a random UUID the server keeps
 * nowhere) that the client repeats: it is who the caller is (its entity), and what a `notifications/cancelled`
 * names a call by. A client that hangs up cancels its calls' replies. GET (a stream of server-initiated
 * messages) and DELETE (ending a session) answer 405: there is no stream to hold and no session to end. The
 * guards of `createHttpApp` run first: Host rule, origin guard, the messaging rate budget, body limit, token
 * (`x-api-key` or `Authorization: Bearer`), JSON content type. A budget counts calls, not requests: a JSON-RPC
 * batch (MCP 2025-03-26; refused from 2025-06-18, which removed batching) holds at most `maxBatchMessages`
 * messages, and each of its `tools/call` takes a token of the caller's rate budget. The MCP SDK is imported at
 * the first POST (`mcp-exchange.ts`): a server nobody asks over MCP never loads it.
 */
export function mcpRoutes(options: McpRoutesOptions): Hono<AppEnv> {
  const toolsNow = liveAgentTools(options.agents);
  const running = new RunningCalls();
  const maxBatchMessages = options.maxBatchMessages ?? DEFAULTS.mcpServer.maxBatchMessages;
  const routes = new Hono<AppEnv>();

  routes.post(MCP_PATH, async (c) => {
    const body = parseJson(await c.req.text());
    if (!body) return jsonRpcError(400, PARSE_ERROR, 'Parse error: Invalid JSON');
    // JSON-RPC: an empty batch is an invalid request (the transport would accept it and answer nothing).
    if (Array.isArray(body.value) && body.value.length === 0) {
      return jsonRpcError(400, INVALID_REQUEST, 'Invalid Request: empty batch');
    }
    const batch = Array.isArray(body.value) ? (body.value as unknown[]) : undefined;
    if (batch) {
      const refusal = batchRefusal(batch, c.req.header('mcp-protocol-version'), maxBatchMessages);
      if (refusal) return jsonRpcError(400, INVALID_REQUEST, refusal);
    }
    const logger: Logger = c.get('logger');
    const person = requestPerson(c);
    const caller = {
      ...callerOf(c.req.header(MCP_SESSION_HEADER)),
      ...(person ? { person, entityId: person.entityId } : {}),
    };
    const shared: AgentMcpServerOptions = { ...options, tools: toolsNow(), running, logger };
    const { answerMcp } = await loadExchange();
    return answerMcp({
      request: c.req.raw,
      body: body.value,
      batch: batch !== undefined,
      budget: c.get('rateBudget'),
      caller,
      shared,
      logger,
    });
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
