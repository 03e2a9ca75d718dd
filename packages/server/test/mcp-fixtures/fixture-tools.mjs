// @ts-check
import process from 'node:process';
import { clearTimeout, setTimeout } from 'node:timers';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

/** A 1×1 transparent PNG, base64. */
export const PIXEL_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

/**
 * The MCP server the MCP client tests talk to, over stdio or HTTP: tools that echo, add, fail with `isError`,
 * return an image, tell their process id and environment, wait, write (a tool behind an approval), add a tool, say hello,
 * and `search`,
 * which two servers may both have.
 *
 * @param {string} name the server's name, echoed by `search` and `hello`
 * @param {readonly string[]} [tools] the tools it has (default: every one)
 * @returns {McpServer}
 */
export function createFixtureServer(name, tools) {
  const server = new McpServer({ name: `fixture-${name}`, version: '1.0.0' });
  /** @param {string} tool */
  const has = (tool) => tools === undefined || tools.includes(tool);
  let grown = false;
  if (has('hello')) {
    server.registerTool('hello', { description: 'Says hello' }, () => ({
      content: [{ type: 'text', text: `hello from ${name}` }],
    }));
  }
  if (has('echo')) {
    server.registerTool(
      'echo',
      { description: 'Echoes a text', inputSchema: { text: z.string() } },
      ({ text }) => ({ content: [{ type: 'text', text: `echo: ${text}` }] }),
    );
  }
  if (has('add')) {
    server.registerTool(
      'add',
      { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } },
      ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
    );
  }
  if (has('search')) {
    server.registerTool(
      'search',
      { description: `Searches ${name}`, inputSchema: { query: z.string() } },
      ({ query }) => ({ content: [{ type: 'text', text: `${name} found ${query}` }] }),
    );
  }
  if (has('snapshot')) {
    server.registerTool('snapshot', { description: 'Takes a picture' }, () => ({
      content: [
        { type: 'text', text: 'one transparent pixel' },
        { type: 'image', data: PIXEL_PNG, mimeType: 'image/png' },
      ],
    }));
  }
  if (has('fail')) {
    server.registerTool('fail', { description: 'Always fails' }, () => ({
      isError: true,
      content: [{ type: 'text', text: 'the disk is on fire' }],
    }));
  }
  if (has('whoami')) {
    server.registerTool('whoami', { description: 'The process id of this server' }, () => ({
      content: [{ type: 'text', text: String(process.pid) }],
    }));
  }
  if (has('wait')) {
    server.registerTool(
      'wait',
      { description: 'Waits, then answers', inputSchema: { ms: z.number() } },
      async ({ ms }, extra) => {
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, ms);
          extra.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            resolve(undefined);
          });
        });
        return { content: [{ type: 'text', text: `waited ${ms} ms` }] };
      },
    );
  }
  if (has('env')) {
    server.registerTool(
      'env',
      {
        description: 'The names in its environment, and one value',
        inputSchema: { name: z.string() },
      },
      ({ name }) => ({
        content: [
          {
            type: 'text',
            text: `${Object.keys(process.env).sort().join(',')}|${process.env[name] ?? ''}`,
          },
        ],
      }),
    );
  }
  if (has('grow')) {
    // Adds a tool: the server tells its clients that its list changed.
    server.registerTool('grow', { description: 'Adds the tool grown' }, () => {
      if (!grown) {
        grown = true;
        server.registerTool('grown', { description: 'A tool added later' }, () => ({
          content: [{ type: 'text', text: 'I am new' }],
        }));
      }
      return { content: [{ type: 'text', text: 'grown' }] };
    });
  }
  if (has('write_file')) {
    server.registerTool(
      'write_file',
      { description: 'Writes a file', inputSchema: { path: z.string() } },
      ({ path }) => ({ content: [{ type: 'text', text: `wrote ${path}` }] }),
    );
  }
  return server;
}
