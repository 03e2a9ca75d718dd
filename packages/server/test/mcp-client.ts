import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { defineAction, type Character, type Plugin } from '@parley/plugin-sdk';
import type { ModelRequest } from '../src/models/model-provider';

/** The token the test servers require. */
export const MCP_TEST_TOKEN = 'mcp-test-token';

/** The agents of the test servers: a name that is not model-safe, with a bio, and a plain one. */
export const MCP_TEST_CHARACTERS: Character[] = [
  { name: 'Ada Lovelace', bio: ['Writes the first programs.', 'Answers in one line.'] },
  { name: 'Bob' },
];

/** `LOOKUP {city}`: the weather, from a table. */
export const weatherPlugin: Plugin = {
  name: 'weather',
  description: 'Weather lookups',
  actions: [
    defineAction({
      name: 'LOOKUP',
      description: 'Looks up the weather of a city',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string' } },
        required: ['city'],
      },
      handler: (_runtime, _message, _state, options) => ({
        success: true,
        text: `${String(options?.parameters?.city)}: hot`,
      }),
    }),
  ],
};

/** `FORGET {what}`: runs only once a person approves it. */
export const approvalPlugin: Plugin = {
  name: 'forgetful',
  description: 'Forgets things, with approval',
  actions: [
    defineAction({
      name: 'FORGET',
      description: 'Forgets what it is told to',
      parameters: { type: 'object', properties: { what: { type: 'string' } } },
      needsApproval: true,
      handler: () => ({ success: true, text: 'Forgot.' }),
    }),
  ],
};

/** The text of the message being answered. */
export const lastText = (request: ModelRequest): string => String(request.messages.at(-1)?.content);

/** Whether the model was already given a tool's result in this reply. */
export const answered = (request: ModelRequest): boolean =>
  request.messages.some((message) => message.role === 'tool');

/**
 * An SDK client connected to `url`'s `/mcp`, with these headers on every request (default: the token as
 * `x-api-key`). Rejects as the SDK does when the server refuses (a `StreamableHTTPError` with the status).
 */
export async function connectMcp(
  url: string,
  headers: Record<string, string> = { 'x-api-key': MCP_TEST_TOKEN },
): Promise<Client> {
  const client = new Client({ name: 'parley-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', url), {
    requestInit: { headers },
  });
  await client.connect(transport);
  return client;
}

/** What a tool call's structured content holds. */
export interface AgentAnswer {
  replyId: string;
  channelId: string;
  text: string;
  toolCalls: {
    toolCallId: string;
    toolName: string;
    input: unknown;
    output?: unknown;
    error?: string;
  }[];
}

/** A raw POST to `/mcp`, as a client that does not use the SDK sends it. */
export function postMcp(
  url: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(new URL('/mcp', url), {
    method: 'POST',
    headers: {
      'x-api-key': MCP_TEST_TOKEN,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body,
  });
}
