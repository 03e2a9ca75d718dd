import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Character } from '@parley/plugin-sdk';
import { describe, expect, it } from 'vitest';
import { loadCharacterFile } from '../../agents/character';
import { createServer } from '../../create-server';
import { createLogger } from '../../logger';
import { mcpServersOf } from './mcp-settings';

const withMcp = (mcp: unknown): Character => ({ name: 'Ada', settings: { mcp } as never });

/**
 * What `createServer` says of a character with this `settings.mcp`: a refusal comes before anything opens (the
 * data folder given does not exist and is never created).
 */
async function refusal(mcp: unknown): Promise<string> {
  try {
    const server = createServer({
      characters: [withMcp(mcp)],
      logger: createLogger('silent'),
      env: {},
      database: { kind: 'pglite', dataDir: join(tmpdir(), 'parley-never-created') },
    });
    await server.stop();
    return 'accepted';
  } catch (error) {
    return `${(error as Error).name}: ${(error as Error).message}`;
  }
}

describe('settings.mcp', () => {
  it('takes elizaOS plugin-mcp character settings as they are', () => {
    const servers = mcpServersOf(
      withMcp({
        servers: {
          github: {
            type: 'stdio',
            name: 'Code Server',
            command: 'npx',
            args: ['-y', '@modelcontextprotocol/server-github'],
            env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_x' },
            timeoutInMillis: 45_000,
          },
          modern: { type: 'streamable-http', url: 'https://example.com/mcp' },
          local: { type: 'http', url: 'http://localhost:3000', timeout: 30 },
          legacy: { type: 'sse', url: 'http://localhost:8080' },
        },
        maxRetries: 2,
      }),
    );
    expect(servers.map((server) => [server.serverName, server.type, server.callTimeoutMs])).toEqual(
      [
        ['github', 'stdio', 45_000],
        ['modern', 'streamable-http', undefined],
        ['local', 'http', 30_000],
        ['legacy', 'sse', undefined],
      ],
    );
    expect(servers.every((server) => server.policy === 'never')).toBe(true);
  });

  it("reads Parley's deadline and approval policy per server, else the character's", () => {
    const [one, two] = mcpServersOf(
      withMcp({
        timeoutMs: 5_000,
        approval: 'always',
        servers: {
          one: { type: 'http', url: 'http://a.example/mcp' },
          two: {
            type: 'http',
            url: 'http://b.example/mcp',
            timeoutMs: 900,
            approval: { tools: ['rm'] },
          },
        },
      }),
    );
    expect([one?.callTimeoutMs, one?.policy]).toEqual([5_000, 'always']);
    expect([two?.callTimeoutMs, two?.policy]).toEqual([900, { tools: ['rm'] }]);
  });

  it('refuses a bad one when the server is created, naming the character and the field', async () => {
    const cases: [unknown, string][] = [
      [
        { servers: { web: { type: 'http', url: 'ftp://x' } } },
        'settings.mcp.servers.web.url must be an http(s) URL',
      ],
      [
        { servers: { web: { type: 'websocket', url: 'ws://x' } } },
        'settings.mcp.servers.web.type must be',
      ],
      [
        { servers: { fs: { type: 'stdio', comand: 'x' } } },
        'settings.mcp.servers.fs.command is required; settings.mcp.servers.fs Unrecognized key: "comand"',
      ],
      [
        { servers: { fs: { type: 'stdio', command: '' } } },
        'settings.mcp.servers.fs.command must not be empty',
      ],
      [
        { servers: { 'my server': { type: 'stdio', command: 'x' } } },
        'settings.mcp.servers.my server is not a server name',
      ],
      [
        { servers: { a: { type: 'stdio', command: 'x', approval: 'sometimes' } } },
        'approval must be "always", "never"',
      ],
      [
        { servers: { a: { type: 'stdio', command: 'x', timeoutMs: 0 } } },
        'settings.mcp.servers.a.timeoutMs must be a whole number of ms from 1 to 600000',
      ],
      [{ server: {} }, 'settings.mcp.servers must be an object of servers by name'],
      ['not json', 'settings.mcp Invalid input: expected object, received string'],
    ];
    for (const [mcp, message] of cases) {
      const said = await refusal(mcp);
      expect(said).toMatch(/^ConfigError: character Ada: settings\.mcp/);
      expect(said).toContain(message);
    }
    expect(mcpServersOf(withMcp({ servers: {} }))).toEqual([]);
  });

  it('a character file with a bad one is refused as it loads, naming the file and the field', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'parley-mcp-settings-'));
    try {
      const path = join(dir, 'ada.json');
      await writeFile(
        path,
        JSON.stringify({ name: 'Ada', settings: { mcp: { servers: { web: { type: 'http' } } } } }),
      );
      await expect(loadCharacterFile(path)).rejects.toThrow(
        `character file ${path}: settings.mcp.servers.web.url`,
      );
      await writeFile(
        path,
        JSON.stringify({
          name: 'Ada',
          settings: { mcp: { servers: { web: { type: 'http', url: 'http://x/mcp' } } } },
        }),
      );
      expect(mcpServersOf(await loadCharacterFile(path))).toHaveLength(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
