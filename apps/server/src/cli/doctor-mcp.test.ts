import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outputOf, spawnParley } from '../test/parley-child';

/** The MCP server over stdio of the server package's tests. */
const FIXTURE = fileURLToPath(
  new URL('../../../../packages/server/test/mcp-fixtures/stdio-server.mjs', import.meta.url),
);

let cwd: string;
/** A local port nothing listens on. */
let refusing: number;
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'parley-doctor-mcp-'));
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  refusing = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
});
afterAll(() => rm(cwd, { recursive: true, force: true }));

async function doctor(mcp: unknown) {
  const path = join(cwd, 'ada.json');
  await writeFile(path, JSON.stringify({ name: 'Ada', settings: { mcp } }));
  return outputOf(
    spawnParley(cwd, ['doctor', '--character', path], {
      PORT: '0',
      PLUGINS: 'none',
      DATA_DIR: join(cwd, 'data'),
    }),
  );
}

describe('parley doctor and MCP servers', () => {
  it('warns about the servers it cannot reach, naming each and why; lists the tools of the others', async () => {
    const { code, stdout } = await doctor({
      servers: {
        good: { type: 'stdio', command: process.execPath, args: [FIXTURE, 'good', 'echo,add'] },
        gone: { type: 'stdio', command: process.execPath, args: ['-e', 'process.exit(1)'] },
        refused: { type: 'http', url: `http://127.0.0.1:${refusing}/mcp` },
      },
    });
    expect(stdout).toContain(
      'warn MCP: 2 of 3 servers unreachable: Ada/gone (the connection closed), Ada/refused (ECONNREFUSED)',
    );
    expect(stdout).toMatch(
      /warn MCP: .*\n {5}fix: start them, or correct the character's settings\.mcp/,
    );
    // A warning, not a failure: the agents work without those tools.
    expect(stdout).toContain('All checks passed.');
    expect(code).toBe(0);

    const up = await doctor({
      servers: {
        good: { type: 'stdio', command: process.execPath, args: [FIXTURE, 'good', 'echo,add'] },
      },
    });
    expect(up.stdout).toContain('ok   MCP: 1 servers answer (Ada/good: 2 tools)');
  });

  it('fails on a bad settings.mcp, naming the file and the field', async () => {
    const { code, stdout } = await doctor({ servers: { web: { type: 'http', url: 'ftp://x' } } });
    expect(stdout).toContain('settings.mcp.servers.web.url must be an http(s) URL');
    expect(stdout).toMatch(/^FAIL /m);
    expect(code).toBe(1);
  });
});
