import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CallToolRequestSchema,
  CancelledNotificationSchema,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { SERVER_PACKAGE_VERSION } from '../../api-docs/package-version';
import type { MessagingService } from '../../messaging/messaging-service';
import { LinearJsonSchemaValidator } from '../../reply/tools/linear-ajv';
import { type AgentTool, agentToolInputSchema, agentToolOutputSchema } from './agent-tools';
import { callAgent, type CallAgentContext } from './call-agent';
import type { McpCaller, RunningCalls } from './mcp-callers';

/** What every request's MCP server shares. */
export interface AgentMcpServerOptions {
  /** The agents as tools (named once, at start). */
  tools: readonly AgentTool[];
  messaging: MessagingService;
  /** How long a call waits for its reply before it answers TIMEOUT. */
  syncTimeoutMs: number;
  logger: Logger;
  /** The calls this process runs, for `notifications/cancelled`. */
  running: RunningCalls;
}

/**
 * The JSON Schema validator every request's server shares: the SDK builds a new Ajv per server otherwise, which
 * was most of the cost of a request (it only checks elicitation answers, which these servers never ask for). Like
 * every Ajv the server runs, its patterns run on a linear-time engine.
 */
let sharedValidator: LinearJsonSchemaValidator | undefined;

/** What the server tells a client at `initialize`. */
const INSTRUCTIONS =
  'Each tool is an agent of this Parley server: call it with a message and it answers with its reply. ' +
  "Pass the answer's channelId back to continue the same conversation; without one, each call starts a new one.";

/**
 * The MCP server of one HTTP request (the SDK's stateless mode: nothing lives between requests): each agent
 * as a tool, answered by {@link callAgent}. A `notifications/cancelled` of the caller's session stops the call
 * it names if this process runs it, by closing that call's own server: its handler's signal aborts, which
 * cancels the reply, and its response stream ends.
 */
export function createAgentMcpServer(options: AgentMcpServerOptions, caller: McpCaller): McpServer {
  const server = new McpServer(
    { name: 'parley', title: 'Parley', version: SERVER_PACKAGE_VERSION },
    {
      instructions: INSTRUCTIONS,
      jsonSchemaValidator: (sharedValidator ??= new LinearJsonSchemaValidator()),
    },
  );
  const context: CallAgentContext = {
    messaging: options.messaging,
    syncTimeoutMs: options.syncTimeoutMs,
    logger: options.logger,
    caller,
  };
  const stop = () => {
    server.close().catch(() => undefined);
  };
  for (const tool of options.tools) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: agentToolInputSchema,
        outputSchema: agentToolOutputSchema,
        // An agent may act on the world through its own tools.
        annotations: { title: tool.title, readOnlyHint: false, openWorldHint: true },
      },
      async (input, extra) => {
        const forget = caller.sessionId
          ? options.running.add(caller.sessionId, extra.requestId, stop)
          : () => undefined;
        try {
          return await callAgent(context, tool, input, extra);
        } finally {
          forget();
        }
      },
    );
  }
  // With every agent stopped there is no tool, and the SDK would not answer tools/list at all (Method not found):
  // the server still has tools, none of them callable now.
  if (options.tools.length === 0) {
    server.server.registerCapabilities({ tools: {} });
    server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [] }));
    server.server.setRequestHandler(CallToolRequestSchema, (request) => ({
      isError: true,
      content: [{ type: 'text', text: `Tool ${request.params.name} not found` }],
    }));
  }
  server.server.setNotificationHandler(CancelledNotificationSchema, (notification) => {
    const { requestId } = notification.params;
    if (caller.sessionId && requestId !== undefined) {
      options.running.cancel(caller.sessionId, requestId);
    }
  });
  return server;
}
