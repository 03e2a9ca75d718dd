import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCharacterFile } from '../../agents/character';
import { startTestServer, type TestServer } from '../../../test/test-server';
import { mcpReadiness } from '../../../test/mcp-fixtures/mcp-test-kit';

const GUIDE = fileURLToPath(new URL('../../../../../docs/approvals-and-mcp.md', import.meta.url));

/** The code blocks of the guide's "MCP tools" section, by language, in order. */
async function sectionBlocks(): Promise<Record<string, string[]>> {
  const text = await readFile(GUIDE, 'utf8');
  const section = text.slice(text.indexOf('## MCP tools'), text.indexOf('## Agents over MCP'));
  const blocks: Record<string, string[]> = {};
  for (const [, language, code] of section.matchAll(/```(\w+)\n([\s\S]*?)```/g)) {
    (blocks[language!] ??= []).push(code!);
  }
  return blocks;
}

describe('docs/approvals-and-mcp.md, MCP tools', () => {
  let server: TestServer;
  let dir: string;
  const home = process.cwd();

  beforeAll(async () => {
    const blocks = await sectionBlocks();
    // Inside this package, so that the server script finds the SDK and zod as `npm install` would give them.
    dir = await mkdtemp(join(home, 'test', '.guide-'));
    await mkdir(join(dir, 'mcp-demo'));
    await writeFile(join(dir, 'mcp-demo', 'weather.mjs'), blocks.js![0]!);
    await writeFile(join(dir, 'ada-mcp.json'), blocks.json![0]!);
    // Where the guide runs Parley: the folder that holds the character file and mcp-demo/.
    process.chdir(dir);
    const character = await loadCharacterFile('ada-mcp.json');
    server = await startTestServer({ characters: [character] });
  });
  afterAll(async () => {
    await server?.[Symbol.asyncDispose]();
    process.chdir(home);
    await rm(dir, { recursive: true, force: true });
  });

  it('the example runs as written with the offline model', async () => {
    const response = await fetch(`${server.url}/api/messaging/channels/${randomUUID()}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ entityId: 'me', text: 'run get_forecast', mode: 'sync' }),
    });
    const body = (await response.json()) as {
      agentResponse: { text: string; toolCalls: { toolName: string; output: unknown }[] };
    };
    expect(body.agentResponse.text).toBe('Paris: sunny, 21 °C');
    expect(body.agentResponse.toolCalls).toMatchObject([
      { toolName: 'get_forecast', output: { text: 'Paris: sunny, 21 °C' } },
    ]);
    expect((await mcpReadiness(server.url)).mcp).toEqual({
      name: 'mcp',
      ok: true,
      detail: '1 of 1 connected',
    });
  });
});
