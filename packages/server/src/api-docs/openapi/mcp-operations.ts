import { z } from 'zod';
import { MCP_PATH } from '../../http/create-app';
import type { DocumentedOperation } from './built-in-operations';

/** A JSON-RPC 2.0 message: a request (with `id`), a notification (without) or a response. */
const jsonRpcMessageSchema = z.looseObject({
  jsonrpc: z.literal('2.0'),
  id: z.union([z.string(), z.number()]).optional(),
  method: z.string().optional(),
  params: z.record(z.string(), z.unknown()).optional(),
  result: z.record(z.string(), z.unknown()).optional(),
  error: z.object({ code: z.number(), message: z.string() }).optional(),
});

/** The transport's own refusals: a JSON-RPC error without a request id. */
const jsonRpcErrorSchema = z.object({
  jsonrpc: z.literal('2.0'),
  error: z.object({ code: z.number(), message: z.string() }),
  id: z.null(),
});

/** The session header the answer to `initialize` carries. */
const SESSION_NOTE =
  'The answer to `initialize` carries `Mcp-Session-Id` (a random UUID the server keeps nowhere): repeating it ' +
  'on later requests makes the caller one entity across calls and lets `notifications/cancelled` reach a call. ' +
  'Requests without it are answered too.';

/** `/mcp` as the documents describe it: the MCP Streamable HTTP endpoint, stateless. */
export const MCP_OPERATIONS: readonly DocumentedOperation[] = [
  {
    method: 'post',
    path: MCP_PATH,
    operationId: 'postMcpMessage',
    summary: 'MCP: the agents as tools (Streamable HTTP)',
    description:
      'JSON-RPC messages of the Model Context Protocol (`initialize`, `tools/list`, `tools/call`, ' +
      'notifications). Each agent is one tool: input `{message, channelId?}`, output the reply as text content ' +
      'and `{replyId, channelId, text, toolCalls}` as structured content. A call with `_meta.progressToken` gets ' +
      "the reply's text and tool calls as `notifications/progress` while it runs. A refusal or a failed reply " +
      'is a tool result with `isError` whose text starts with the error code. Needs `Accept: application/json, ' +
      `text/event-stream\`. ${SESSION_NOTE} The token may also come as \`Authorization: Bearer\`. The answers ` +
      'of the MCP transport (200, 202, 400, 406) are JSON-RPC, not the `/api` envelope.',
    tag: 'mcp',
    auth: ['apiKey', 'bearer'],
    body: z.union([jsonRpcMessageSchema, z.array(jsonRpcMessageSchema).min(1)]),
    responses: {
      200: {
        description:
          'The JSON-RPC responses to the requests, as server-sent events (`event: message`), preceded by ' +
          'progress notifications when asked for.',
        text: 'text/event-stream',
      },
      202: { description: 'Only notifications or responses were posted: nothing to answer.' },
      400: {
        description:
          'Not JSON (-32700), not a JSON-RPC message, an empty batch (-32600), or an unsupported ' +
          '`MCP-Protocol-Version`.',
        json: jsonRpcErrorSchema,
      },
      406: {
        description: '`Accept` does not list both `application/json` and `text/event-stream`.',
        json: jsonRpcErrorSchema,
      },
    },
    errors: [],
  },
  ...(['get', 'delete'] as const).map((method): DocumentedOperation => ({
    method,
    path: MCP_PATH,
    operationId: method === 'get' ? 'openMcpStream' : 'endMcpSession',
    summary:
      method === 'get'
        ? 'MCP: a stream of server-initiated messages (not offered)'
        : 'MCP: end a session (not offered)',
    description:
      'The server is stateless: it holds no stream of its own messages and no session to end, so this ' +
      'answers 405 (`Allow: POST`), which MCP clients take as "not offered".',
    tag: 'mcp',
    auth: ['apiKey', 'bearer'],
    responses: { 405: { description: 'Not offered.', json: jsonRpcErrorSchema } },
    errors: [],
  })),
];
