import type { Character } from '@parley/plugin-sdk';
import { toValidationIssues } from '@parley/core';
import { z } from 'zod';
import { ConfigError } from '../../errors/config-error';

/** Longest call deadline a character may give an MCP server, in ms (as `TOOL_TIMEOUT_MS`). */
export const MAX_MCP_TIMEOUT_MS = 600_000;

/** A server's name: it prefixes its tools' names when they collide, so it is model-safe. */
const SERVER_NAME = /^[A-Za-z0-9_-]{1,64}$/;

const TIMEOUT_RULE = { error: `must be a whole number of ms from 1 to ${MAX_MCP_TIMEOUT_MS}` };
const timeoutSchema = z
  .number(TIMEOUT_RULE)
  .int(TIMEOUT_RULE)
  .min(1, TIMEOUT_RULE)
  .max(MAX_MCP_TIMEOUT_MS, TIMEOUT_RULE);

/** A required text: "is required" when absent. */
const requiredText = () =>
  z.string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be text') });

/**
 * Which calls of a server's tools wait for a person's approval: `"always"` every one, `"never"` none, or
 * `{tools: [...]}` the tools named (as the server names them).
 */
export const mcpApprovalSchema = z.union(
  [
    z.enum(['always', 'never']),
    z.strictObject({ tools: z.array(z.string().min(1).max(128)).min(1).max(256) }),
  ],
  { error: 'must be "always", "never" or {"tools": ["tool name", ...]}' },
);

/** What every kind of server takes besides its transport. */
const commonFields = {
  /** elizaOS: a display name (not used). */
  name: z.string().max(256).optional(),
  /** Parley: the deadline of one tool call, in ms (default: the character's, else `MCP_CALL_TIMEOUT_MS`). */
  timeoutMs: timeoutSchema.optional(),
  /** elizaOS's name of `timeoutMs`. */
  timeoutInMillis: timeoutSchema.optional(),
  /** elizaOS (http): the call deadline in seconds, read when neither of the above is set. */
  timeout: z
    .number()
    .positive()
    .max(MAX_MCP_TIMEOUT_MS / 1000)
    .optional(),
  /** Parley: which calls wait for a person (default: the character's `approval`, else `"never"`). */
  approval: mcpApprovalSchema.optional(),
};

const stdioServerSchema = z.strictObject({
  type: z.literal('stdio'),
  command: requiredText().trim().min(1, 'must not be empty'),
  args: z.array(z.string()).max(256).default([]),
  env: z.record(z.string().min(1), z.string()).optional(),
  cwd: z.string().min(1).optional(),
  ...commonFields,
});

const httpUrlSchema = requiredText().refine(
  (value) => {
    try {
      return ['http:', 'https:'].includes(new URL(value).protocol);
    } catch {
      return false;
    }
  },
  { error: 'must be an http(s) URL' },
);

const httpServerSchema = z.strictObject({
  type: z.enum(['http', 'streamable-http', 'sse']),
  url: httpUrlSchema,
  headers: z.record(z.string().min(1), z.string()).optional(),
  ...commonFields,
});

/** One server of `settings.mcp.servers`: a command run over stdio, or a URL (Streamable HTTP or SSE). */
export const mcpServerSchema = z.discriminatedUnion('type', [stdioServerSchema, httpServerSchema], {
  error: (issue) =>
    issue.code === 'invalid_union'
      ? 'must be "stdio", "http", "streamable-http" or "sse"'
      : undefined,
});

/**
 * A character's `settings.mcp`: elizaOS `plugin-mcp`'s shape (`{servers: {name: {type, ...}}}`, `maxRetries`
 * accepted), plus Parley's `timeoutMs` and `approval`, for every server and per server.
 */
export const mcpSettingsSchema = z.strictObject({
  servers: z
    .record(z.string(), mcpServerSchema, { error: 'must be an object of servers by name' })
    .superRefine((servers, context) => {
      for (const name of Object.keys(servers)) {
        if (SERVER_NAME.test(name)) continue;
        context.addIssue({
          code: 'custom',
          path: [name],
          message: 'is not a server name: use 1 to 64 letters, digits, "_" or "-"',
        });
      }
    }),
  timeoutMs: timeoutSchema.optional(),
  approval: mcpApprovalSchema.optional(),
  /** elizaOS: connection attempts (not used: Parley retries with a bounded backoff for as long as it runs). */
  maxRetries: z.number().int().nonnegative().optional(),
});

/** A parsed `settings.mcp`. */
export type McpSettings = z.infer<typeof mcpSettingsSchema>;
/** A parsed approval policy. */
export type McpApproval = z.infer<typeof mcpApprovalSchema>;

/** One server of one agent, as the client uses it: its transport, call deadline and approval policy. */
export type McpServerConfig = z.infer<typeof mcpServerSchema> & {
  /** The key under `servers`. */
  serverName: string;
  /** The call deadline, in ms (undefined: the server's `MCP_CALL_TIMEOUT_MS`). */
  callTimeoutMs?: number;
  policy: McpApproval;
};

/** Whether a tool's calls need approval under `policy` (the tool named as its server names it). */
export function needsApprovalUnder(policy: McpApproval, toolName: string): boolean {
  if (policy === 'always') return true;
  if (policy === 'never') return false;
  return policy.tools.includes(toolName);
}

/**
 * The MCP servers a character's `settings.mcp` names, in file order, each with its deadline and policy resolved
 * (a server's own, else the character's, else the defaults). None: an empty list. A bad one is a ConfigError
 * naming the character and the field (`settings.mcp.servers.github.url must be an http(s) URL`).
 */
export function mcpServersOf(character: Readonly<Character>): McpServerConfig[] {
  const raw = character.settings?.mcp;
  if (raw === undefined || raw === null) return [];
  const result = mcpSettingsSchema.safeParse(typeof raw === 'string' ? parseJson(raw) : raw);
  if (!result.success) {
    // The first few problems: a missing field and the misspelt key that should have been it come together.
    const said = toValidationIssues(result.error)
      .slice(0, 3)
      .map(({ path, message }) => `settings.mcp${path === '(root)' ? '' : `.${path}`} ${message}`);
    throw new ConfigError(`character ${character.name}: ${said.join('; ')}`);
  }
  const settings = result.data;
  return Object.entries(settings.servers).map(([serverName, server]) => ({
    ...server,
    serverName,
    callTimeoutMs: callTimeoutOf(server) ?? settings.timeoutMs,
    policy: server.approval ?? settings.approval ?? 'never',
  }));
}

/**
 * Refuses a stdio server whose `command` is not on the operator's allow list (`MCP_STDIO_COMMANDS`), whoever's
 * character names it: commands match as written (`npx` allows `npx`, not `/usr/bin/npx`; no PATH lookup, so a
 * listed name cannot be swapped for another file of that name by a character). No list: any command, as before.
 */
export function checkStdioCommands(
  character: Readonly<Character>,
  servers: readonly McpServerConfig[],
  allowed: readonly string[] | undefined,
): void {
  if (allowed === undefined) return;
  for (const server of servers) {
    if (server.type !== 'stdio' || allowed.includes(server.command)) continue;
    throw new ConfigError(
      `character ${character.name}: settings.mcp.servers.${server.serverName}.command "${server.command}" ` +
        `is not in MCP_STDIO_COMMANDS (${allowed.length === 0 ? 'none allowed' : allowed.join(', ')}); ` +
        'add it there to let this server run',
    );
  }
}

function callTimeoutOf(server: z.infer<typeof mcpServerSchema>): number | undefined {
  if (server.timeoutMs !== undefined) return server.timeoutMs;
  if (server.timeoutInMillis !== undefined) return server.timeoutInMillis;
  return server.timeout === undefined ? undefined : Math.ceil(server.timeout * 1000);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Issues of a character file's `settings.mcp`, for the character schema (paths under `settings.mcp`). */
export function checkMcpSettings(value: unknown, context: z.RefinementCtx): void {
  if (value === undefined) return;
  const result = mcpSettingsSchema.safeParse(value);
  if (result.success) return;
  for (const issue of result.error.issues) {
    context.addIssue({ code: 'custom', path: ['mcp', ...issue.path], message: issue.message });
  }
}
