import { probeMcpServers } from '@parley/server/health';
import type { ParleyConfig } from '@parley/server/config';
import type { DoctorResult } from './doctor-check';

/** How long each MCP server has to answer (all are asked at once). */
const MCP_TIMEOUT_MS = 8000;

/**
 * The MCP servers the characters name (`settings.mcp`) answer: each is connected to once, its tools listed, and
 * closed (a stdio server's process ends). One that does not is a warning, not a failure: the agents answer
 * without its tools, and the server retries it.
 */
export async function checkMcp(config: ParleyConfig): Promise<DoctorResult> {
  const results = await probeMcpServers(config.characters, MCP_TIMEOUT_MS);
  if (results.length === 0) {
    return { status: 'ok', message: 'MCP: no server named in the characters (settings.mcp)' };
  }
  const named = (result: (typeof results)[number]) => `${result.agent}/${result.server}`;
  const down = results.filter((result) => !result.ok);
  if (down.length === 0) {
    const tools = results.map((result) => `${named(result)}: ${result.tools} tools`).join(', ');
    return { status: 'ok', message: `MCP: ${results.length} servers answer (${tools})` };
  }
  return {
    status: 'warn',
    message:
      `MCP: ${down.length} of ${results.length} servers unreachable: ` +
      down.map((result) => `${named(result)} (${result.error ?? 'unreachable'})`).join(', '),
    fix: "start them, or correct the character's settings.mcp; meanwhile the agents answer without their tools",
  };
}
