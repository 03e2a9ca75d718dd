/** The all-zero UUID, used as the server id when a message names none. */
export const DEFAULT_SERVER_ID = '00000000-0000-0000-0000-000000000000';

/** Header that carries the server's API key (`SERVER_AUTH_TOKEN`) and a secured route's key. */
export const API_KEY_HEADER = 'x-api-key';

/** Built-in path prefixes that no plugin route may use. */
export const RESERVED_PATH_PREFIXES = [
  '/api/messaging',
  '/api/tee',
  '/api/agents',
  '/api/server',
  '/api/webhooks',
  // The audit log of admin actions (admins only).
  '/api/audit',
  // elizaOS's memory API (`@elizaos/api-client`'s `memory.*`): agents' memories and rooms.
  '/api/memory',
  '/socket.io',
  // The agents, served as MCP tools over Streamable HTTP.
  '/mcp',
  // The agents, served as OpenAI models (chat completions, responses).
  '/v1',
  // The agents over A2A (JSON-RPC and their cards).
  '/a2a',
] as const;

/**
 * Paths the server itself serves outside those prefixes (API documents, metrics): no plugin route may take
 * them either. Unlike the prefixes they bring their own auth (the documents are open, metrics need the token).
 */
export const RESERVED_PATHS = [
  '/api/docs',
  '/api/openapi.json',
  '/api/asyncapi.json',
  '/metrics',
  // The default agent's A2A card, where A2A clients look for it.
  '/.well-known/agent-card.json',
] as const;
