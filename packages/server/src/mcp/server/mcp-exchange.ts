import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  isInitializeRequest,
  isJSONRPCRequest,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { RateBudget } from '../../http/app-env';
import { createAgentMcpServer, type AgentMcpServerOptions } from './agent-mcp-server';
import { MCP_SESSION_HEADER, type McpCaller, newSessionId } from './mcp-callers';

/** Our code for a call refused by the caller's rate budget (in JSON-RPC's server-error range; 429's digits). */
export const RATE_LIMITED_ERROR = -32029;

/** One POST to `/mcp` that passed the route's own checks (see `mcp-routes.ts`). */
export interface McpExchange {
  request: Request;
  /** The body, parsed. */
  body: unknown;
  /** Whether the body is a JSON-RPC batch. */
  batch: boolean;
  /** The caller's rate budget, when rates are limited. */
  budget: RateBudget | undefined;
  caller: McpCaller;
  shared: AgentMcpServerOptions;
  logger: Logger;
}

/**
 * The SDK's half of a request to `/mcp`: a server and a transport of its own, the request handled, the answer
 * to `initialize` naming a session. A module of its own so that the MCP SDK is imported at the first request to
 * `/mcp`, not at start-up (a server nobody asks over MCP never loads it; see docs/decisions.md).
 */
export async function answerMcp(exchange: McpExchange): Promise<Response> {
  const { request, body, caller, logger } = exchange;
  const server = createAgentMcpServer(exchange.shared, caller);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
  });
  transport.onerror = (error) => logger.debug({ reason: error.message }, 'MCP request refused');
  await server.connect(transport);
  if (exchange.batch && exchange.budget) chargeEachCall(transport, exchange.budget);
  // The client went away: its calls' handlers abort, which cancels their replies.
  request.signal.addEventListener('abort', () => void server.close(), { once: true });
  const response = await transport.handleRequest(request, { parsedBody: body });
  if (response.ok && isInitializeRequest(body)) {
    response.headers.set(MCP_SESSION_HEADER, caller.sessionId ?? newSessionId());
  }
  return response;
}

/**
 * Makes every `tools/call` of a batch after the first take a token of the caller's rate budget (the request's
 * own token pays for the first): a call the budget cannot pay for is answered with a JSON-RPC error naming
 * RATE_LIMITED and when to retry, and never reaches the agent.
 */
function chargeEachCall(transport: WebStandardStreamableHTTPServerTransport, budget: RateBudget) {
  const deliver = transport.onmessage?.bind(transport);
  let paid = false;
  transport.onmessage = (message: JSONRPCMessage, extra?: MessageExtraInfo) => {
    if (isJSONRPCRequest(message) && message.method === 'tools/call') {
      const waitSeconds = paid ? budget.take() : 0;
      paid = true;
      if (waitSeconds > 0) {
        transport.send(rateLimited(message.id, waitSeconds)).catch(() => undefined);
        return;
      }
    }
    deliver?.(message, extra);
  };
}

/** The answer to a call the caller's budget could not pay for. */
function rateLimited(id: RequestId, retryAfterSeconds: number): JSONRPCMessage {
  return {
    jsonrpc: '2.0',
    id,
    error: {
      code: RATE_LIMITED_ERROR,
      message: `RATE_LIMITED: Too many calls; retry after ${retryAfterSeconds} s`,
      data: { code: 'RATE_LIMITED', retryAfterSeconds },
    },
  };
}
