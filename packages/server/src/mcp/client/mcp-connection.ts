import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { LinearJsonSchemaValidator } from '../../reply/tools/linear-ajv';
import { boundTools, type BoundReport, type McpToolBounds } from './bound-tools';
import { classifyMcpFailure, describeMcpFailure } from './mcp-failure';
import type { McpServerConfig } from './mcp-settings';
import { loadMcpClientSdk } from './mcp-sdk';
import { createMcpTransport } from './mcp-transport';

/** Checks tools' structured results against their `outputSchema`, shared by every connection (made by the first). */
let outputValidator: LinearJsonSchemaValidator | undefined;

/** Pages of `tools/list` read at most (a server that never stops paging is cut there). */
const MAX_TOOL_PAGES = 20;

/** How one server is reached and kept: deadlines, backoff, liveness checks, bounds. */
export interface McpConnectionLimits extends McpToolBounds {
  /** Connecting (spawn, initialize, list tools), a `tools/list` and a ping: each within this. */
  connectTimeoutMs: number;
  /** The first reconnect waits this long; each next one twice as long, up to `reconnectMaxMs`. */
  reconnectMinMs: number;
  reconnectMaxMs: number;
  /** How often a connected server is pinged (0: never); a ping that fails is an outage. */
  pingMs: number;
  /** Most tools taken from one server. */
  maxTools: number;
}

/** `connecting` (the first attempt), `connected`, `down` (reconnecting with backoff) or `closed`. */
export type McpConnectionState = 'connecting' | 'connected' | 'down' | 'closed';

/** A call refused because the server is not connected. */
export class McpUnavailableError extends Error {
  override readonly name = 'McpUnavailableError';
}

interface Link {
  client: Client;
  stderrTail: () => string[];
  /** While connecting, a close is reported by the attempt's own failure (with its cause), not by `onclose`. */
  opening: boolean;
}

/**
 * One agent's link to one MCP server, kept up: connects with the official SDK client, lists the tools (every
 * page) and hands them to `onTools` (again when the server says its list changed, and after each reconnect). A
 * server that cannot be reached, whose process exits, whose connection closes, or that stops answering pings
 * is down: one warning per outage, reconnects with a doubling, capped, jittered delay, one line when it is back.
 */
export class McpConnection {
  state: McpConnectionState = 'connecting';
  /** Why the server is down (safe to show: no URL, no secret). */
  lastError?: string;
  readonly #config: McpServerConfig;
  readonly #limits: McpConnectionLimits;
  readonly #logger: Logger;
  readonly #onTools: (tools: Tool[]) => void;
  #link?: Link;
  #attempts = 0;
  #outageLogged = false;
  #timer?: NodeJS.Timeout;
  #ping?: NodeJS.Timeout;
  readonly #closing = new Set<Promise<unknown>>();
  /** What the bounds last cut, as logged (the same listing again is not logged again). */
  #lastBoundReport: string | undefined;

  constructor(
    config: McpServerConfig,
    limits: McpConnectionLimits,
    logger: Logger,
    onTools: (tools: Tool[]) => void,
  ) {
    this.#config = config;
    this.#limits = limits;
    this.#logger = logger;
    this.#onTools = onTools;
  }

  /** The first attempt: resolves once connected or found down (then retried in the background); never rejects. */
  start(): Promise<void> {
    return this.#connect();
  }

  /** Calls a tool within `timeoutMs` and `signal`. Throws McpUnavailableError when down, else the SDK's error. */
  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: { signal?: AbortSignal; timeoutMs: number },
  ): Promise<CallToolResult> {
    const link = this.#link;
    if (!link || this.state !== 'connected') throw new McpUnavailableError(this.describeDown());
    try {
      return (await link.client.callTool({ name, arguments: args }, undefined, {
        ...(options.signal ? { signal: options.signal } : {}),
        timeout: options.timeoutMs,
        maxTotalTimeout: options.timeoutMs,
      })) as CallToolResult;
    } catch (error) {
      if (!options.signal?.aborted && classifyMcpFailure(error) === 'outage')
        this.#lost(link, error);
      throw error;
    }
  }

  /** Why calls are refused, in words for the model. */
  describeDown(): string {
    const name = this.#config.serverName;
    if (this.state === 'closed') return `MCP server "${name}" is closed`;
    return `MCP server "${name}" is unreachable${this.lastError ? ` (${this.lastError})` : ''}; try again later`;
  }

  /** Closes the connection for good: no more reconnects, the process of a stdio server ends. */
  async close(): Promise<void> {
    this.state = 'closed';
    clearTimeout(this.#timer);
    clearInterval(this.#ping);
    const link = this.#link;
    this.#link = undefined;
    if (link) this.#closeLink(link);
    await Promise.allSettled([...this.#closing]);
  }

  async #connect(): Promise<void> {
    if (this.state === 'closed') return;
    // The SDK is imported by the first connection (a server naming no MCP server never loads it). An install
    // without it fails the start, as the static import it replaces did.
    const sdk = await loadMcpClientSdk();
    // Closed while the SDK was imported (the compiler does not see that the await lets `close` run).
    if ((this.state as McpConnectionState) === 'closed') return;
    const { transport, stderrTail } = createMcpTransport(this.#config, sdk);
    const client = new sdk.Client(
      { name: 'parley', version: '1.0.0' },
      {
        capabilities: {},
        // Tools' output schemas come from the server: their patterns run on a linear-time engine.
        jsonSchemaValidator: (outputValidator ??= new LinearJsonSchemaValidator()),
        listChanged: {
          tools: { autoRefresh: false, debounceMs: 300, onChanged: () => void this.#refresh(link) },
        },
      },
    );
    const link: Link = { client, stderrTail, opening: true };
    this.#link = link;
    client.onclose = () => {
      if (!link.opening) this.#lost(link, new Error('the connection closed'));
    };
    client.onerror = (error) =>
      this.#logger.debug({ server: this.#config.serverName, err: error }, 'MCP transport error');
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer in ${this.#limits.connectTimeoutMs} ms`)),
        this.#limits.connectTimeoutMs,
      );
    });
    try {
      const tools = await Promise.race([this.#open(client, transport), deadline]);
      if (this.#link !== link) return;
      this.#up(tools);
    } catch (error) {
      this.#lost(link, error);
    } finally {
      link.opening = false;
      clearTimeout(timer);
    }
  }

  async #open(
    client: Client,
    transport: ReturnType<typeof createMcpTransport>['transport'],
  ): Promise<Tool[]> {
    await client.connect(transport, { timeout: this.#limits.connectTimeoutMs });
    return this.#listTools(client);
  }

  async #listTools(client: Client): Promise<Tool[]> {
    if (!client.getServerCapabilities()?.tools) return [];
    const tools: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page += 1) {
      const result = await client.listTools(cursor === undefined ? undefined : { cursor }, {
        timeout: this.#limits.connectTimeoutMs,
      });
      tools.push(...result.tools);
      cursor = result.nextCursor;
      if (cursor === undefined || tools.length >= this.#limits.maxTools) break;
    }
    if (tools.length > this.#limits.maxTools) {
      this.#logger.warn(
        { server: this.#config.serverName, listed: tools.length, kept: this.#limits.maxTools },
        'an MCP server lists more tools than are taken; the rest are not offered',
      );
    }
    const bounded = boundTools(tools.slice(0, this.#limits.maxTools), this.#limits);
    this.#reportBounds(bounded.report);
    return bounded.tools;
  }

  /** Says once per connection what the bounds cut or left out (a server lists its tools again on changes). */
  #reportBounds({ cut, left }: BoundReport): void {
    const key = JSON.stringify([cut, left]);
    if ((cut.length === 0 && left.length === 0) || key === this.#lastBoundReport) return;
    this.#lastBoundReport = key;
    this.#logger.warn(
      { server: this.#config.serverName, cut, left },
      "an MCP server's tool descriptions or schemas are over their bounds: cut, or the tool left out",
    );
  }

  #up(tools: Tool[]): void {
    const name = this.#config.serverName;
    this.state = 'connected';
    this.lastError = undefined;
    this.#attempts = 0;
    if (this.#outageLogged) this.#logger.info({ server: name }, `MCP server "${name}" is back`);
    this.#outageLogged = false;
    this.#onTools(tools);
    if (this.#limits.pingMs > 0) {
      clearInterval(this.#ping);
      const link = this.#link!;
      this.#ping = setInterval(() => void this.#checkAlive(link), this.#limits.pingMs);
      this.#ping.unref();
    }
  }

  async #refresh(link: Link): Promise<void> {
    try {
      const tools = await this.#listTools(link.client);
      if (this.#link === link && this.state === 'connected') this.#onTools(tools);
    } catch (error) {
      if (classifyMcpFailure(error) !== 'tool') this.#lost(link, error);
    }
  }

  async #checkAlive(link: Link): Promise<void> {
    try {
      await link.client.ping({ timeout: this.#limits.connectTimeoutMs });
    } catch (error) {
      this.#lost(link, error);
    }
  }

  /** The server behind `link` is gone (ignored for a link already replaced or closed). */
  #lost(link: Link, error: unknown): void {
    if (this.#link !== link || this.state === 'closed') return;
    this.#link = undefined;
    clearInterval(this.#ping);
    this.#closeLink(link);
    this.state = 'down';
    this.lastError = describeMcpFailure(error);
    const name = this.#config.serverName;
    if (!this.#outageLogged) {
      this.#outageLogged = true;
      const stderr = link.stderrTail();
      this.#logger.warn(
        { server: name, reason: this.lastError, ...(stderr.length > 0 ? { stderr } : {}) },
        `MCP server "${name}" is unreachable (${this.lastError}); its tools are not offered until it is back`,
      );
    } else {
      this.#logger.debug({ server: name, reason: this.lastError }, 'MCP server still unreachable');
    }
    const { reconnectMinMs, reconnectMaxMs } = this.#limits;
    const base = Math.min(reconnectMaxMs, reconnectMinMs * 2 ** Math.min(this.#attempts, 30));
    this.#attempts += 1;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#connect(), base / 2 + (Math.random() * base) / 2);
    this.#timer.unref();
  }

  /** Closes a link's client (a stdio server's process is ended: stdin closed, then SIGTERM, then SIGKILL). */
  #closeLink(link: Link): void {
    link.client.onclose = undefined;
    const closing = link.client.close().catch(() => undefined);
    this.#closing.add(closing);
    void closing.finally(() => this.#closing.delete(closing));
  }
}
