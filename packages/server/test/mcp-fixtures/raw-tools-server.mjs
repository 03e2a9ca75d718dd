// @ts-check
// A hostile MCP server over stdio: `node raw-tools-server.mjs <spec.json>` lists the tools of the spec exactly as
// written there (any JSON Schema, any description) and answers every call with the spec's `results[name]`, or a
// text naming the tool and its arguments. The spec is a file: a listing of hundreds of KiB does not fit in argv.
import { readFileSync } from 'node:fs';
import process from 'node:process';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

/** @type {{ tools: Record<string, unknown>[], results?: Record<string, Record<string, unknown>> }} */
const spec = JSON.parse(readFileSync(String(process.argv[2]), 'utf8')); // eslint-disable-line @typescript-eslint/no-unsafe-assignment -- a test fixture's own file
const server = new Server({ name: 'raw-tools', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: spec.tools }));
server.setRequestHandler(CallToolRequestSchema, (request) => {
  const result = spec.results?.[request.params.name];
  if (result) return result;
  return {
    content: [
      {
        type: 'text',
        text: `${request.params.name} called with ${JSON.stringify(request.params.arguments)}`,
      },
    ],
  };
});
await server.connect(new StdioServerTransport());
