import type { StoredMessage } from '@parley/core';
import type { Plugin } from '../plugin/plugin';
import type { AgentRuntime, Character } from '../plugin/runtime';
import {
  loadParleyServer,
  type ActionCallOutcome,
  type HarnessActionCall,
} from './load-parley-server';

/** Options of {@link startTestServer}. */
export interface TestServerOptions {
  /** The agents (default: one agent named `Plugin Test Agent`); the first is the default agent. */
  characters?: Character[];
  /** Settings given to every agent; a character's own `settings` win over these. */
  settings?: Record<string, string>;
  /**
   * The environment behind `runtime.getSetting` (default: empty, so that tests do not depend on the machine's
   * variables; pass `process.env` to opt in).
   */
  env?: Record<string, string | undefined>;
  /**
   * Makes the server require `x-api-key` on non-public routes and built-in endpoints; also the environment's
   * `SERVER_AUTH_TOKEN`, as in the app, so that `fetchRoute` sends it.
   */
  authToken?: string;
  /** Largest JSON body in bytes (server default 1 MiB). */
  bodyLimit?: number;
  /** Largest multipart upload in bytes (server default 10 MiB). */
  uploadLimit?: number;
  /** Route handler timeout in milliseconds (server default 30000). */
  routeTimeoutMs?: number;
  /** Folder `@parley/server` is resolved from (default: the working directory). */
  projectDir?: string;
}

/** A live in-process Parley server with an in-memory database, for tests. */
export interface TestServer extends AsyncDisposable {
  /** Base address, e.g. `http://127.0.0.1:54321`. */
  readonly url: string;
  /** Every agent's runtime, default agent first. */
  readonly agents: AgentRuntime[];
  /** The default agent's runtime. */
  readonly runtime: AgentRuntime;
  /** A channel's stored messages, newest first (`GET /api/messaging/channels/{id}/messages`). */
  listMessages(channelId: string): Promise<StoredMessage[]>;
  /**
   * Drives one action as the agent loop would call it: `parameters` checked against the action's schema, its
   * providers' state, its deadline, its `callback` posting into `options.channelId` as the agent. Resolves with
   * the result the model would be given (`output`) or the `error` it would be told, and the messages posted.
   *
   * @example
   * const { output } = await server.callAction('CALCULATE', { expression: '6 * 7' });
   * expect(output?.text).toBe('6 * 7 = 42');
   */
  callAction(
    action: string,
    parameters?: unknown,
    options?: Omit<HarnessActionCall, 'action' | 'parameters'>,
  ): Promise<ActionCallOutcome>;
  /** Stops the server; safe to call more than once. */
  stop(): Promise<void>;
}

const DEFAULT_TEST_CHARACTER: Character = { name: 'Plugin Test Agent' };

function withSettings(
  characters: readonly Character[] | undefined,
  settings: Record<string, string> | undefined,
): Character[] {
  const list = characters?.length ? characters : [DEFAULT_TEST_CHARACTER];
  return list.map((character) => ({
    ...character,
    settings: { ...settings, ...character.settings },
  }));
}

/**
 * Starts a real Parley server on a free port with the given plugins loaded, every agent's settings applied and
 * an in-memory database (a few seconds: start one per test file). `@parley/server` is loaded from the plugin
 * author's project, so it must be one of its devDependencies.
 *
 * @example
 * await using server = await startTestServer(myPlugin, { settings: { WEBHOOK_API_KEY: 'test-key' } });
 * const response = await fetch(`${server.url}/webhook`, { method: 'POST', body: '{}' });
 */
export async function startTestServer(
  plugins: Plugin | Plugin[],
  options: TestServerOptions = {},
): Promise<TestServer> {
  const { createServer, createLogger } = await loadParleyServer(options.projectDir);
  const server = createServer({
    port: 0,
    host: '127.0.0.1',
    plugins: Array.isArray(plugins) ? plugins : [plugins],
    characters: withSettings(options.characters, options.settings),
    // As in the app, where the token comes from the environment, so plugins can read SERVER_AUTH_TOKEN.
    env: { ...(options.authToken ? { SERVER_AUTH_TOKEN: options.authToken } : {}), ...options.env },
    logger: createLogger('silent'),
    database: { kind: 'pglite', dataDir: 'memory' },
    authToken: options.authToken,
    bodyLimit: options.bodyLimit,
    uploadLimit: options.uploadLimit,
    routeTimeoutMs: options.routeTimeoutMs,
  });
  let url: string;
  try {
    ({ url } = await server.start());
  } catch (error) {
    await server.stop();
    throw error;
  }
  const agents = server.agents.list();
  const stop = () => server.stop();
  return {
    url,
    agents,
    runtime: agents[0]!,
    async listMessages(channelId) {
      const response = await fetch(
        `${url}/api/messaging/channels/${encodeURIComponent(channelId)}/messages`,
        { headers: options.authToken ? { 'x-api-key': options.authToken } : {} },
      );
      if (!response.ok) {
        throw new Error(`listing channel ${channelId} failed with HTTP ${response.status}`);
      }
      return ((await response.json()) as { data: { messages: StoredMessage[] } }).data.messages;
    },
    callAction: (action, parameters, callOptions = {}) =>
      server.callAction({ ...callOptions, action, parameters }),
    stop,
    [Symbol.asyncDispose]: stop,
  };
}
