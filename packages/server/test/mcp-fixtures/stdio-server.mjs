// @ts-check
// An MCP server over stdio for the MCP client tests: `node stdio-server.mjs <name> [tool,tool...]`.
import process from 'node:process';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createFixtureServer } from './fixture-tools.mjs';

const server = createFixtureServer(process.argv[2] ?? 'stdio', process.argv[3]?.split(','));
await server.connect(new StdioServerTransport());
