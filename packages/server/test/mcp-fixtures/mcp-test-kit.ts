import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import { createLogger } from '../../src/logger';
import type { ModelRequest } from '../../src/models/model-provider';
import { answerFromResults, type LoopFixture, type SyncBody } from '../agent-loop-fixture';

/** The stdio fixture server's script. */
export const STDIO_SERVER = fileURLToPath(new URL('./stdio-server.mjs', import.meta.url));

/** A stdio server of `settings.mcp` running the fixture `name` with `tools` (default: all). */
export function stdioServer(name: string, tools?: string[], extra: Record<string, unknown> = {}) {
  return {
    type: 'stdio',
    command: process.execPath,
    args: [STDIO_SERVER, name, ...(tools ? [tools.join(',')] : [])],
    ...extra,
  };
}

/** Reconnects within a test's patience. */
export const FAST_MCP = { reconnectMinMs: 50, reconnectMaxMs: 200, connectTimeoutMs: 10_000 };

/** Polls `check` until it holds; rejects after `timeoutMs` (a bound far above the normal time). */
export async function waitFor(
  check: () => Promise<boolean> | boolean,
  what: string,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The `mcp` readiness check of a server, and the status of the answer. */
export async function mcpReadiness(
  url: string,
): Promise<{ status: number; mcp?: { ok: boolean; detail?: string } }> {
  const response = await fetch(`${url}/api/server/ready`);
  const body = (await response.json()) as {
    data?: { checks?: { name: string; ok: boolean; detail?: string }[] };
  };
  return {
    status: response.status,
    mcp: body.data?.checks?.find((check) => check.name === 'mcp'),
  };
}

/** A debug logger whose JSON lines the test reads. */
export function memoryLogger(): { logger: Logger; lines: () => { level: number; msg: string }[] } {
  const lines: string[] = [];
  const logger = createLogger('debug', { write: (line: string) => void lines.push(line) });
  return {
    logger,
    lines: () => lines.map((line) => JSON.parse(line) as { level: number; msg: string }),
  };
}

/** Makes the model call `toolName` with `input` on the user's message, then answer "Done: <results>". */
export async function askTool(
  loop: LoopFixture,
  toolName: string,
  input: Record<string, unknown> = {},
  channelId = loop.channel(),
): Promise<SyncBody> {
  loop.model.behaviour = {
    toolCalls: (request: ModelRequest) =>
      request.messages.at(-1)?.role === 'user'
        ? [{ toolCallId: 'call_1', toolName, input: JSON.stringify(input) }]
        : undefined,
    reply: answerFromResults,
    plain: true,
  };
  return loop.sync(channelId, `please use ${toolName}`);
}

/** The names of the tools offered in the model's last tool-offering request. */
export function offeredTools(loop: LoopFixture): string[] {
  const request = [...loop.model.requests].reverse().find((item) => item.tools !== undefined);
  return (request?.tools ?? []).map((tool) => tool.name).sort();
}
