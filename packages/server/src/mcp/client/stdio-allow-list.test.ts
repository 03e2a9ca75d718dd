import { describe, expect, it } from 'vitest';
import { createServer } from '../../create-server';
import { ConfigError } from '../../errors/config-error';
import { createLogger } from '../../logger';
import { copyPGliteTemplate } from '../../../test/databases';
import { startTestServer } from '../../../test/test-server';
import {
  FAST_MCP,
  mcpReadiness,
  stdioServer,
  waitFor,
} from '../../../test/mcp-fixtures/mcp-test-kit';

/**
 * `MCP_STDIO_COMMANDS` from outside: a character (a file someone handed the operator) naming a command that is
 * not on the list stops the start before anything runs; a listed one runs and is ready.
 */
const character = (name: string, command: string) => ({
  name,
  settings: { mcp: { servers: { local: { ...stdioServer('local', ['echo']), command } } } },
});

describe('stdio MCP commands on the allow list only', () => {
  it('refuses to start with a command not on the list, naming the character, the server and the setting', async () => {
    const database = await copyPGliteTemplate();
    try {
      let caught: unknown;
      try {
        createServer({
          port: 0,
          logger: createLogger('silent'),
          env: {},
          characters: [character('Allowed', process.execPath), character('Mallory', '/bin/sh')],
          mcp: { ...FAST_MCP, stdioCommands: [process.execPath] },
          database: database.location,
        });
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(ConfigError);
      expect((caught as Error).message).toBe(
        `character Mallory: settings.mcp.servers.local.command "/bin/sh" is not in MCP_STDIO_COMMANDS (${process.execPath}); add it there to let this server run`,
      );

      // `none`: not even a listed-looking command runs.
      expect(() =>
        createServer({
          port: 0,
          logger: createLogger('silent'),
          env: {},
          characters: [character('Allowed', process.execPath)],
          mcp: { stdioCommands: [] },
          database: database.location,
        }),
      ).toThrow(/is not in MCP_STDIO_COMMANDS \(none allowed\)/);
    } finally {
      await database.dispose();
    }
  });

  it('runs a listed command: the server starts and its MCP server is ready', async () => {
    await using test = await startTestServer({
      characters: [character('Allowed', process.execPath)],
      mcp: { ...FAST_MCP, stdioCommands: ['/bin/sh', process.execPath] },
    });
    await waitFor(
      async () => (await mcpReadiness(test.url)).mcp?.ok === true,
      'the listed stdio server ready',
    );
  });
});
