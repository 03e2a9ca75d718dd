import type { Character, Plugin } from '@parley/plugin-sdk';
import type { Hono } from 'hono';
import { pino, type Logger } from 'pino';
import { ParleyError } from '@parley/core';
import { toAgentProfile } from '../agents/agent-profile';
import { type AgentServices, ParleyAgentRuntime } from '../agents/agent-runtime';
import type { AppEnv } from '../http/app-env';
import { createHttpApp } from '../http/create-app';
import { loadPlugins } from './loading/load-plugins';
import { pluginRoutes, type PluginRoutesOptions } from './plugin-routes';

/** A log line as pino writes it. */
export type LogLine = Record<string, unknown> & { level: number; msg?: string };

/** A logger that keeps its lines in memory. */
export interface MemoryLogger {
  logger: Logger;
  lines: LogLine[];
  /** Resolves with the first line, logged already or later, that matches. */
  waitForLine: (matches: (line: LogLine) => boolean) => Promise<LogLine>;
}

/** A pino logger that keeps its lines in memory, for assertions on what was logged. */
export function createMemoryLogger(): MemoryLogger {
  const lines: LogLine[] = [];
  const waiters = new Set<(line: LogLine) => void>();
  const logger = pino(
    { level: 'debug' },
    {
      write(text: string) {
        const line = JSON.parse(text) as LogLine;
        lines.push(line);
        for (const waiter of waiters) waiter(line);
      },
    },
  );
  const waitForLine = (matches: (line: LogLine) => boolean) =>
    new Promise<LogLine>((resolve) => {
      const found = lines.find(matches);
      if (found) return resolve(found);
      const waiter = (line: LogLine) => {
        if (!matches(line)) return;
        waiters.delete(waiter);
        resolve(line);
      };
      waiters.add(waiter);
    });
  return { logger, lines, waitForLine };
}

/** Services of agents without a server: messaging calls fail with UNAVAILABLE. */
const NO_SERVER: AgentServices = {
  sendMessage: () => Promise.reject(noServer()),
  scheduleMessage: () => Promise.reject(noServer()),
  sendControl: () => {
    throw noServer();
  },
};

function noServer() {
  return new ParleyError('UNAVAILABLE', 'This test app has no messaging service');
}

/** Agent runtimes built the way the server builds them, without a server. */
export function createTestAgents(logger: Logger, ...characters: Character[]): ParleyAgentRuntime[] {
  return characters.map(
    (character) =>
      new ParleyAgentRuntime(toAgentProfile(character), {
        env: {},
        serverUrl: () => 'http://localhost:3000',
        logger: logger.child({ agent: character.name }),
        services: NO_SERVER,
      }),
  );
}

/** What {@link createPluginTestApp} needs. */
export interface PluginTestAppOptions extends PluginRoutesOptions {
  /** The plugins of each agent; a list is given to every agent. */
  plugins: Plugin[] | ((agent: ParleyAgentRuntime) => Plugin[]);
  /** Default: one agent named Ada. */
  characters?: Character[];
}

/**
 * The app the server would build, minus the server: `createHttpApp` (request ids, logger, error handler) with the
 * plugin sub-app mounted at `/`. Drive it with `app.request()`.
 */
export async function createPluginTestApp(options: PluginTestAppOptions) {
  const { logger, lines, waitForLine } = createMemoryLogger();
  const agents = createTestAgents(logger, ...(options.characters ?? [{ name: 'Ada' }]));
  const { plugins } = options;
  const table = await loadPlugins({
    agents,
    pluginsFor: (agent) =>
      typeof plugins === 'function' ? plugins(agent as ParleyAgentRuntime) : plugins,
    logger,
  });
  const app: Hono<AppEnv> = createHttpApp({ logger, bodyLimit: 1024 * 1024 });
  app.route('/', pluginRoutes(table, options));
  return { app, agents, lines, waitForLine, table };
}
