import { z } from 'zod';
import { A2A_PATH, AGENT_CARD_PATH } from '../../a2a/a2a-routes';
import type { DocumentedOperation } from './built-in-operations';

const agentIdParam = { agentId: z.string().describe("The agent's id") };

/** An A2A 1.0 agent card, as the documents show it (the A2A specification defines every field). */
const agentCardSchema = z.looseObject({
  name: z.string(),
  description: z.string(),
  supportedInterfaces: z.array(
    z.looseObject({
      url: z.string().describe('The JSON-RPC endpoint: `/a2a/{agentId}`'),
      protocolBinding: z.literal('JSONRPC'),
      protocolVersion: z.string(),
    }),
  ),
  version: z.string(),
  capabilities: z.looseObject({ streaming: z.boolean() }),
  securitySchemes: z
    .record(z.string(), z.unknown())
    .describe(
      'The server token as `x-api-key` or `Authorization: Bearer`; empty when the server has none',
    ),
  skills: z
    .array(z.looseObject({ id: z.string(), name: z.string(), description: z.string() }))
    .describe("The agent's actions"),
});

/** A JSON-RPC 2.0 request of A2A 1.0 (`SendMessage`, `SendStreamingMessage`, `GetTask`, `ListTasks`, `CancelTask`). */
const jsonRpcRequestSchema = z.looseObject({
  jsonrpc: z.literal('2.0'),
  id: z.union([z.string(), z.number(), z.null()]).optional(),
  method: z
    .string()
    .describe('`SendMessage`, `SendStreamingMessage`, `GetTask`, `ListTasks`, `CancelTask`'),
  params: z.record(z.string(), z.unknown()).optional().describe('As the A2A specification defines'),
});

const jsonRpcResponseSchema = z.looseObject({
  jsonrpc: z.literal('2.0'),
  id: z.union([z.string(), z.number(), z.null()]),
  result: z.unknown().optional().describe('A task, a list of tasks, or a message'),
  error: z
    .object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() })
    .optional()
    .describe(
      '-32700 parse error, -32600 invalid request, -32601 unknown method, -32602 bad params, -32001 task not ' +
        'found, -32002 task not cancelable',
    ),
});

const cardOperation = (
  path: string,
  operationId: string,
  summary: string,
): DocumentedOperation => ({
  method: 'get',
  path,
  operationId,
  summary,
  description: 'Open without the token: a card is discovery, and names the auth the calls need.',
  tag: 'a2a',
  auth: [],
  ...(path.includes(':agentId') ? { pathParams: agentIdParam } : {}),
  responses: { 200: { description: 'The agent card (A2A 1.0).', json: agentCardSchema } },
  errors: ['NOT_FOUND'],
});

/** The A2A face: each agent's card and its JSON-RPC endpoint, as the documents describe them. */
export const A2A_OPERATIONS: readonly DocumentedOperation[] = [
  cardOperation(AGENT_CARD_PATH, 'getDefaultAgentCard', "A2A: the default agent's card"),
  cardOperation(`${A2A_PATH}/:agentId${AGENT_CARD_PATH}`, 'getAgentCard', "A2A: an agent's card"),
  {
    method: 'post',
    path: `${A2A_PATH}/:agentId`,
    operationId: 'a2aJsonRpc',
    summary: "A2A: the agent's JSON-RPC endpoint",
    description:
      'A task is a reply: `SendMessage` answers the task once the reply ends (completed, input-required while ' +
      'an approval waits, canceled or failed); `SendStreamingMessage` streams it as server-sent events of ' +
      'JSON-RPC responses (the task, status updates, the answer as artifact pieces). The context id is the ' +
      "channel; the message's `messageId` is its idempotency key. JSON-RPC errors answer 200.",
    tag: 'a2a',
    auth: ['apiKey', 'bearer'],
    pathParams: agentIdParam,
    body: jsonRpcRequestSchema,
    responses: {
      200: {
        description: 'A JSON-RPC response, or (`SendStreamingMessage`) a stream of them.',
        json: jsonRpcResponseSchema,
      },
    },
    errors: ['NOT_FOUND'],
  },
];
