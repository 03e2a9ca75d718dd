import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { StoredMessage } from '@parley/core';
import type { Plugin } from '../plugin/plugin';
import type { AgentRuntime, Character } from '../plugin/runtime';

/**
 * The part of `@parley/server`'s `createServer` options the harness uses, typed here by structure: the SDK must
 * not depend on the server, which depends on the SDK.
 */
export interface HarnessServerOptions {
  port: number;
  host: string;
  plugins: Plugin[];
  characters?: Character[];
  env: Record<string, string | undefined>;
  logger: unknown;
  database: { kind: 'pglite'; dataDir: string };
  authToken?: string;
  bodyLimit?: number;
  uploadLimit?: number;
  routeTimeoutMs?: number;
}

/** One action called directly through {@link HarnessServer.callAction}. */
export interface HarnessActionCall {
  action: string;
  parameters?: unknown;
  text?: string;
  channelId?: string;
  agentId?: string;
  entityId?: string;
}

/** What a direct action call came to: the result the model would get, or the error, and what it posted. */
export interface ActionCallOutcome {
  output?: { text?: string; values?: Record<string, unknown>; data?: Record<string, unknown> };
  error?: string;
  posted: StoredMessage[];
}

/** The part of a running `@parley/server` server the harness uses. */
export interface HarnessServer {
  readonly agents: { list(): AgentRuntime[] };
  callAction(request: HarnessActionCall): Promise<ActionCallOutcome>;
  start(): Promise<{ url: string; port: number }>;
  stop(): Promise<void>;
}

/** The part of the `@parley/server` module the harness uses. */
export interface ParleyServerModule {
  createServer: (options: HarnessServerOptions) => HarnessServer;
  createLogger: (level: 'silent') => unknown;
}

const MISSING_SERVER =
  'Plugin tests run against a live Parley server: install @parley/server as a devDependency to run plugin tests ' +
  '(npm install --save-dev @parley/server)';

function isServerModule(value: unknown): value is ParleyServerModule {
  const module = value as Partial<ParleyServerModule> | null;
  return typeof module?.createServer === 'function' && typeof module.createLogger === 'function';
}

/**
 * Loads `@parley/server` from the plugin author's project (resolved from `projectDir`, default the working
 * directory), not from the SDK's own dependencies: the server is an optional peer of the SDK.
 *
 * @throws Error telling the author to install `@parley/server` when it cannot be resolved.
 */
export async function loadParleyServer(projectDir = process.cwd()): Promise<ParleyServerModule> {
  let entry: string;
  try {
    entry = createRequire(join(projectDir, 'package.json')).resolve('@parley/server');
  } catch (error) {
    throw new Error(MISSING_SERVER, { cause: error });
  }
  const loaded: unknown = await import(pathToFileURL(entry).href);
  if (!isServerModule(loaded)) {
    throw new Error(
      `${entry} does not export createServer and createLogger; is @parley/server up to date?`,
    );
  }
  return loaded;
}
