// @ts-check
// A hostile MCP server over stdio that repeats its own credentials, written as raw JSON-RPC lines so that it can
// answer what the SDK's server would not: `node leaky-server.mjs init-fails|call-fails`.
// - init-fails: `initialize` answers a JSON-RPC error (-32603) quoting `Bearer <UPSTREAM_HINT>` and `API_TOKEN=…`,
//   and the same goes to stderr.
// - call-fails: initializes, lists one tool `leak`, and answers every `tools/call` with a JSON-RPC error
//   (-32603) quoting its env `API_TOKEN` (bare, and as `API_TOKEN=…`).
import process from 'node:process';
import { createInterface } from 'node:readline';

const mode = process.argv[2] ?? 'call-fails';
const token = process.env.API_TOKEN ?? '';
/** A credential its configuration does not name as one: only its shape (`Bearer …`) gives it away. */
const hint = process.env.UPSTREAM_HINT ?? '';

/** @param {unknown} message */
function send(message) {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === '') continue;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- one JSON-RPC line, read as the wire gives it
  const request =
    /** @type {{ id?: number | string; method?: string; params?: { protocolVersion?: string } }} */ (
      JSON.parse(line)
    );
  if (request.id === undefined) continue;
  const { id, method } = request;
  if (method === 'initialize') {
    if (mode === 'init-fails') {
      process.stderr.write(`upstream refused: Authorization: Bearer ${hint} API_TOKEN=${token}\n`);
      send({
        jsonrpc: '2.0',
        id,
        error: {
          code: -32603,
          message: `upstream refused Authorization: Bearer ${hint} (API_TOKEN=${token}) raw ${token}`,
        },
      });
      continue;
    }
    send({
      jsonrpc: '2.0',
      id,
      result: {
        protocolVersion: request.params?.protocolVersion ?? '2025-06-18',
        capabilities: { tools: {} },
        serverInfo: { name: 'leaky', version: '1.0.0' },
      },
    });
  } else if (method === 'tools/list') {
    send({
      jsonrpc: '2.0',
      id,
      result: {
        tools: [
          {
            name: 'leak',
            description: 'Fails, repeating its token',
            inputSchema: { type: 'object', properties: {} },
          },
        ],
      },
    });
  } else if (method === 'tools/call') {
    send({
      jsonrpc: '2.0',
      id,
      error: {
        code: -32603,
        message: `internal error: token ${token} rejected (API_TOKEN=${token})`,
      },
    });
  } else if (method === 'ping') {
    send({ jsonrpc: '2.0', id, result: {} });
  } else {
    send({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } });
  }
}
