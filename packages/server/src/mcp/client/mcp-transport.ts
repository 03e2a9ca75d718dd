import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpClientSdk } from './mcp-sdk';
import type { McpServerConfig } from './mcp-settings';

/** The SDK's transports (imported when the first server connects: `mcp-sdk.ts`). */
type Transports = Pick<
  McpClientSdk,
  'SSEClientTransport' | 'StdioClientTransport' | 'StreamableHTTPClientTransport'
>;

/** Lines of a stdio server's stderr kept, to say why it stopped. */
const STDERR_LINES = 5;
/** Longest stderr line kept. */
const STDERR_LINE_LENGTH = 200;

/** A transport to one server, and what its process last wrote on stderr (stdio only). */
export interface McpTransport {
  transport: Transport;
  /** The last lines of the process's stderr (stdio), newest last; empty for HTTP. */
  stderrTail: () => string[];
}

/**
 * A transport for `config`: stdio spawns the command (the SDK's safe default environment — PATH, HOME… — plus
 * the server's `env`, never the rest of Parley's environment; stderr read, not inherited); `http` and
 * `streamable-http` use Streamable HTTP, `sse` the older HTTP+SSE transport, each with the server's headers.
 */
export function createMcpTransport(config: McpServerConfig, sdk: Transports): McpTransport {
  if (config.type === 'stdio') return stdioTransport(config, sdk);
  const url = new URL(config.url);
  const requestInit: RequestInit = config.headers ? { headers: config.headers } : {};
  const transport =
    config.type === 'sse'
      ? new sdk.SSEClientTransport(url, { requestInit })
      : new sdk.StreamableHTTPClientTransport(url, { requestInit });
  return { transport, stderrTail: () => [] };
}

function stdioTransport(
  config: Extract<McpServerConfig, { type: 'stdio' }>,
  sdk: Transports,
): McpTransport {
  const transport = new sdk.StdioClientTransport({
    command: config.command,
    args: config.args,
    ...(config.env ? { env: config.env } : {}),
    ...(config.cwd ? { cwd: config.cwd } : {}),
    stderr: 'pipe',
  });
  const tail: string[] = [];
  let partial = '';
  // Read, so that a talkative server never blocks on a full pipe; the last lines say why it stopped.
  transport.stderr?.on('data', (chunk: Buffer | string) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = (lines.pop() ?? '').slice(-STDERR_LINE_LENGTH);
    for (const line of lines) {
      if (line.trim() === '') continue;
      tail.push(line.slice(0, STDERR_LINE_LENGTH));
      if (tail.length > STDERR_LINES) tail.shift();
    }
  });
  return {
    transport,
    stderrTail: () => (partial.trim() === '' ? [...tail] : [...tail, partial]),
  };
}
