import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { AgentRuntime, Character } from '@parley/plugin-sdk';
import type { Logger } from 'pino';
import type { AgentAbilities } from '../../agents/agent-abilities';
import { isSecretName, registerSecretValues } from '../../redaction/redact';
import type { ReadinessProbe } from '../../health/readiness';
import { McpConnection, type McpConnectionLimits, type McpConnectionState } from './mcp-connection';
import type { McpServerConfig } from './mcp-settings';
import { McpToolSet } from './mcp-tool-actions';

/** The MCP client's bounds: a call's default deadline, and how servers are reached and kept. */
export interface McpClientLimits extends McpConnectionLimits {
  /** A tool call's deadline when neither the server nor the character sets one (`MCP_CALL_TIMEOUT_MS`). */
  callTimeoutMs: number;
  /**
   * The commands a stdio MCP server may run (`MCP_STDIO_COMMANDS`, as written in `command`); undefined: any. A
   * character naming another one stops the start with a line that says so.
   */
  stdioCommands?: readonly string[];
}

/** An agent and the MCP servers its character names (`mcpServersOf`). */
export interface McpAgent {
  agent: AgentRuntime & { character: Readonly<Character>; abilities: AgentAbilities };
  servers: readonly McpServerConfig[];
}

/** How one server of one agent is doing. */
export interface McpServerStatus {
  agent: string;
  server: string;
  state: McpConnectionState;
  /** Tools offered from it. */
  tools: number;
  /** Why it is down (safe to show). */
  error?: string;
}

/** Longest readiness detail, in characters. */
const MAX_DETAIL = 1_000;

interface Entry {
  agent: string;
  config: McpServerConfig;
  connection: McpConnection;
  tools: McpToolSet;
  /** Tools listed before the first registration (held so that names are decided in file order). */
  pending?: Tool[];
}

/**
 * The MCP servers of every agent (its character's `settings.mcp`, read by `mcpServersOf`): connected at start, their tools added to each agent's actions, and
 * closed at stop (stdio servers' processes ended).
 */
export class McpClients {
  readonly #entries: Entry[] = [];
  #started = false;
  /** Takes the servers' header and env secrets out of every redaction again (at close). */
  readonly #unregister: () => void;

  constructor(agents: readonly McpAgent[], limits: McpClientLimits, logger: Logger) {
    for (const { agent, servers } of agents) {
      for (const config of servers) {
        const log = logger.child({ agent: agent.character.name, mcpServer: config.serverName });
        const entry: Entry = {
          agent: agent.character.name,
          config,
          connection: undefined as unknown as McpConnection,
          tools: new McpToolSet(
            {
              config,
              abilities: agent.abilities,
              runtime: agent,
              callTimeoutMs: config.callTimeoutMs ?? limits.callTimeoutMs,
              secrets: secretsOf(config),
              logger: log,
            },
            () => entry.connection,
          ),
        };
        entry.connection = new McpConnection(config, limits, log, (tools) =>
          this.#onTools(entry, tools),
        );
        this.#entries.push(entry);
      }
    }
    // What a server repeats of its own credentials (an error, a log line, readiness) is redacted everywhere.
    this.#unregister = registerSecretValues(
      this.#entries.flatMap(({ config }) => secretsOf(config)),
    );
  }

  /** Whether any agent names an MCP server. */
  get configured(): boolean {
    return this.#entries.length > 0;
  }

  /**
   * Connects every server at once, each within the connect deadline, then adds their tools in file order (so
   * that which names are namespaced does not depend on which server answered first). Never rejects: a server
   * that is down is retried in the background.
   */
  async start(): Promise<void> {
    await Promise.all(this.#entries.map((entry) => entry.connection.start()));
    const crowded = crowdedNames(this.#entries);
    for (const entry of this.#entries) {
      const tools = entry.pending;
      entry.pending = undefined;
      if (tools) entry.tools.sync(tools, crowded.get(entry) ?? new Set());
    }
    this.#started = true;
  }

  /** Every server of every agent, in file order. */
  status(): McpServerStatus[] {
    return this.#entries.map(({ agent, config, connection, tools }) => ({
      agent,
      server: config.serverName,
      state: connection.state,
      tools: connection.state === 'connected' ? tools.actionNames.length : 0,
      ...(connection.lastError ? { error: connection.lastError } : {}),
    }));
  }

  /**
   * The `mcp` readiness check: always ok (an agent without one server's tools still answers), its detail naming
   * the servers that are down. Degraded, not unready: taking the process out of rotation would not bring the
   * server back, and every process shares the same servers.
   */
  readinessProbe(): ReadinessProbe {
    return () => Promise.resolve({ name: 'mcp', ok: true, detail: describeStatus(this.status()) });
  }

  /** Closes every connection (no more reconnects; stdio servers' processes end). */
  async close(): Promise<void> {
    await Promise.all(this.#entries.map((entry) => entry.connection.close()));
    this.#unregister();
  }

  #onTools(entry: Entry, tools: Tool[]): void {
    if (this.#started) entry.tools.sync(tools);
    else entry.pending = tools;
  }
}

/** Per entry, the tool names another server of the same agent lists too. */
function crowdedNames(entries: readonly Entry[]): Map<Entry, Set<string>> {
  const counts = new Map<string, number>();
  const key = (entry: Entry, tool: string) => `${entry.agent}\u0000${tool}`;
  for (const entry of entries) {
    for (const tool of new Set((entry.pending ?? []).map((item) => item.name))) {
      counts.set(key(entry, tool), (counts.get(key(entry, tool)) ?? 0) + 1);
    }
  }
  const crowded = new Map<Entry, Set<string>>();
  for (const entry of entries) {
    const names = (entry.pending ?? [])
      .map((tool) => tool.name)
      .filter((name) => (counts.get(key(entry, name)) ?? 0) > 1);
    crowded.set(entry, new Set(names));
  }
  return crowded;
}

/** `2 of 3 connected; down: Ada/github (ECONNREFUSED)`. */
export function describeStatus(status: readonly McpServerStatus[]): string {
  const up = status.filter((server) => server.state === 'connected').length;
  const down = status
    .filter((server) => server.state !== 'connected')
    .map(
      (server) =>
        `${server.agent}/${server.server} (${server.state === 'connecting' ? 'connecting' : (server.error ?? server.state)})`,
    );
  const text = `${up} of ${status.length} connected${down.length > 0 ? `; down: ${down.join(', ')}` : ''}`;
  return text.length <= MAX_DETAIL ? text : `${text.slice(0, MAX_DETAIL - 1)}…`;
}

/**
 * The values of a server's configuration no result may show: its headers (and the credentials after a scheme,
 * `Bearer <token>`), and its env values whose names look secret (`isSecretName`).
 */
export function secretsOf(config: McpServerConfig): string[] {
  if (config.type !== 'stdio') {
    return Object.values(config.headers ?? {}).flatMap((value) => {
      const credentials = /^\S+\s+(\S.*)$/.exec(value.trim())?.[1];
      return credentials ? [value, credentials] : [value];
    });
  }
  return Object.entries(config.env ?? {})
    .filter(([name]) => isSecretName(name))
    .map(([, value]) => value);
}
