import type { Character } from '@parley/plugin-sdk';
import { createLogger } from '../../logger';
import { DEFAULTS } from '../../defaults';
import { McpConnection } from './mcp-connection';
import { secretsOf } from './mcp-clients';
import { mcpServersOf } from './mcp-settings';
import { registerSecretValues } from '../../redaction/redact';

/** What one MCP server of one agent answered to a probe. */
export interface McpProbeResult {
  agent: string;
  server: string;
  ok: boolean;
  /** Tools it lists (when reachable). */
  tools?: number;
  /** Why it is unreachable (safe to show: no URL, no secret). */
  error?: string;
}

/**
 * Connects once to every MCP server the characters name, lists its tools and closes (a stdio server's process
 * ends): what `parley doctor` reports. Each within `timeoutMs`, all at once; never reconnects. A bad
 * `settings.mcp` throws the ConfigError `parley start` would.
 */
export async function probeMcpServers(
  characters: readonly Character[],
  timeoutMs: number = DEFAULTS.mcp.connectTimeoutMs,
): Promise<McpProbeResult[]> {
  const logger = createLogger('silent');
  // What a server repeats of its own credentials in its error is redacted, as in a running server.
  const unregister = registerSecretValues(
    characters.flatMap((character) => mcpServersOf(character).flatMap(secretsOf)),
  );
  const probes = characters.flatMap((character) =>
    mcpServersOf(character).map(async (config): Promise<McpProbeResult> => {
      let tools = 0;
      const connection = new McpConnection(
        config,
        { ...DEFAULTS.mcp, connectTimeoutMs: timeoutMs, pingMs: 0 },
        logger,
        (listed) => (tools = listed.length),
      );
      try {
        await connection.start();
        const base = { agent: character.name, server: config.serverName };
        return connection.state === 'connected'
          ? { ...base, ok: true, tools }
          : { ...base, ok: false, error: connection.lastError ?? 'unreachable' };
      } finally {
        await connection.close();
      }
    }),
  );
  try {
    return await Promise.all(probes);
  } finally {
    unregister();
  }
}
