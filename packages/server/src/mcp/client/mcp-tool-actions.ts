import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Action, AgentRuntime, HandlerCallback, HandlerOptions } from '@parley/plugin-sdk';
import type { Logger } from 'pino';
import { toToolName, type AgentAbilities } from '../../agents/agent-abilities';
import { compileOnce, createLinearAjv, UnsafePatternError } from '../../reply/tools/linear-ajv';
import { McpUnavailableError, type McpConnection } from './mcp-connection';
import { describeMcpFailure } from './mcp-failure';
import { needsApprovalUnder, type McpServerConfig } from './mcp-settings';
import { toActionResult } from './mcp-tool-result';

/**
 * The SDK's own deadline is this much later than the action's: the loop's deadline (a signal) ends a call first,
 * and the model is told it timed out in the loop's words; the SDK's is the backstop.
 */
const SDK_DEADLINE_MARGIN_MS = 1_000;

/** What a server's tools become actions with. */
export interface McpToolSetOptions {
  config: McpServerConfig;
  abilities: AgentAbilities;
  /** The agent's runtime (what the handlers receive). */
  runtime: AgentRuntime;
  /** One call's deadline, in ms. */
  callTimeoutMs: number;
  /** Values never shown in a result: the server's header and env secrets. */
  secrets: readonly string[];
  logger: Logger;
}

interface Registered {
  actionName: string;
  /** The tool as listed, to see whether a new listing changed it. */
  signature: string;
}

/**
 * The actions one MCP server gives one agent: one per tool, named as the tool (made model-safe), or
 * `server__tool` when that name is taken (another server lists it too, or the agent has such an action); a tool
 * keeps its name for as long as the process runs. Each is offered only while the server is connected, needs
 * approval as the server's policy says, and calls the tool within the server's deadline and the call's signal.
 */
export class McpToolSet {
  readonly #options: McpToolSetOptions;
  readonly #connection: () => McpConnection;
  readonly #registered = new Map<string, Registered>();
  /** Every name a tool of this server was given, kept across outages and list changes. */
  readonly #names = new Map<string, string>();

  constructor(options: McpToolSetOptions, connection: () => McpConnection) {
    this.#options = options;
    this.#connection = connection;
  }

  /** The names offered for this server's tools. */
  get actionNames(): string[] {
    return [...this.#registered.values()].map((entry) => entry.actionName);
  }

  /**
   * Makes the agent's actions match `tools`: new ones added, changed ones replaced (same name), gone ones
   * removed. `crowded`: tool names another server of this agent lists too (namespaced from the start).
   */
  sync(tools: readonly Tool[], crowded: ReadonlySet<string> = new Set()): void {
    const { abilities, config, logger } = this.#options;
    const listed = new Set(tools.map((tool) => tool.name));
    for (const [name, entry] of this.#registered) {
      if (listed.has(name)) continue;
      abilities.removeAction(entry.actionName);
      this.#registered.delete(name);
    }
    for (const tool of tools) {
      const signature = JSON.stringify([tool.title, tool.description, tool.inputSchema]);
      const existing = this.#registered.get(tool.name);
      if (existing?.signature === signature) continue;
      if (existing) abilities.removeAction(existing.actionName);
      const actionName = existing?.actionName ?? this.#nameFor(tool.name, crowded);
      try {
        checkOutputSchema(tool);
        abilities.addAction(
          this.#toAction(tool, actionName),
          this.#options.runtime,
          pluginName(config),
        );
        this.#registered.set(tool.name, { actionName, signature });
        this.#names.set(tool.name, actionName);
      } catch (error) {
        this.#registered.delete(tool.name);
        const cause = error instanceof Error ? error.cause : undefined;
        const unsafe = [error, cause].find((item) => item instanceof UnsafePatternError);
        logger.warn(
          {
            server: config.serverName,
            tool: tool.name,
            reason: unsafe instanceof Error ? unsafe.message : 'its schema does not compile',
          },
          'an MCP tool cannot be offered (its input or output schema does not compile); it is left out',
        );
      }
    }
    const unknown =
      typeof config.policy === 'object'
        ? config.policy.tools.filter((name) => !listed.has(name))
        : [];
    if (unknown.length > 0) {
      logger.warn(
        { server: config.serverName, tools: unknown },
        'the approval policy of an MCP server names tools it does not list',
      );
    }
  }

  #nameFor(toolName: string, crowded: ReadonlySet<string>): string {
    const { abilities, config } = this.#options;
    const taken = (name: string) => abilities.findAction(name) !== undefined;
    const before = this.#names.get(toolName);
    if (before !== undefined && !taken(before)) return before;
    const plain = toToolName(toolName);
    if (!crowded.has(toolName) && !taken(plain)) return plain;
    const spaced = toToolName(`${config.serverName}__${toolName}`);
    if (!taken(spaced)) return spaced;
    for (let n = 2; ; n += 1) {
      const numbered = `${spaced.slice(0, 64 - String(n).length - 1)}_${n}`;
      if (!taken(numbered)) return numbered;
    }
  }

  #toAction(tool: Tool, actionName: string): Action {
    const { config, callTimeoutMs } = this.#options;
    return {
      name: actionName,
      description:
        tool.description ??
        tool.title ??
        `The tool ${tool.name} of MCP server ${config.serverName}`,
      parameters: inputSchemaOf(tool),
      timeoutMs: callTimeoutMs,
      needsApproval: needsApprovalUnder(config.policy, tool.name),
      validate: () => this.#connection().state === 'connected' && this.#registered.has(tool.name),
      handler: (_runtime, _message, _state, options, callback) =>
        this.#call(tool.name, actionName, options, callback),
    };
  }

  async #call(
    toolName: string,
    actionName: string,
    options: HandlerOptions | undefined,
    callback: HandlerCallback | undefined,
  ) {
    const { config, callTimeoutMs, secrets } = this.#options;
    const signal = options?.signal;
    try {
      const result = await this.#connection().callTool(toolName, options?.parameters ?? {}, {
        signal,
        timeoutMs: callTimeoutMs + SDK_DEADLINE_MARGIN_MS,
      });
      return await toActionResult(result, { toolName: actionName, callback, secrets });
    } catch (error) {
      // A cancel or the loop's deadline: the loop says which.
      if (signal?.aborted) throw error;
      if (error instanceof McpUnavailableError) return { success: false, error: error.message };
      return {
        success: false,
        error: `MCP server "${config.serverName}": ${describeMcpFailure(error)}`,
      };
    }
  }
}

/** Actions of one server show as the plugin `mcp:<server>` (in logs and conflicts). */
export function pluginName(config: McpServerConfig): string {
  return `mcp:${config.serverName}`;
}

/** The tool's input schema as an action's parameters: an object schema, without `$schema` (Ajv compiles draft 7). */
function inputSchemaOf(tool: Tool): Record<string, unknown> {
  const { $schema: _ignored, ...schema } = tool.inputSchema as Record<string, unknown>;
  return schema;
}

/** Compiles output schemas once to see that they can be checked (a pattern RE2 refuses throws); made by the first. */
let outputAjv: ReturnType<typeof createLinearAjv> | undefined;

/** Throws when the tool's `outputSchema` cannot be checked in linear time: such a tool is not offered. */
function checkOutputSchema(tool: Tool): void {
  if (tool.outputSchema === undefined) return;
  outputAjv ??= createLinearAjv({ validateSchema: false });
  compileOnce(outputAjv, tool.outputSchema);
}
