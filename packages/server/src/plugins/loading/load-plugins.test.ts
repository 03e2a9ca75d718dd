import type { Plugin, Route } from '@parley/plugin-sdk';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../errors/config-error';
import { loadPlugins } from './load-plugins';
import {
  createMemoryLogger,
  createPluginTestApp,
  createTestAgents,
} from '../create-plugin-test-app';

const ok: Route['handler'] = (_req, res) => res.json({ ok: true });

async function load(plugins: unknown[], agentCount = 1) {
  const { logger, lines } = createMemoryLogger();
  const names = ['Ada', 'Bob', 'Cy']
    .slice(0, agentCount)
    .map((name) => ({ name, settings: { GREETING: `hi ${name}` } }));
  const agents = createTestAgents(logger, ...names);
  const table = await loadPlugins({ agents, pluginsFor: () => plugins as Plugin[], logger });
  return { table, lines, agents };
}

async function loadError(plugins: unknown[]): Promise<ConfigError> {
  const error = await load(plugins).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

describe('loadPlugins validation', () => {
  it('refuses a plugin without a name', async () => {
    expect((await loadError([{ name: ' ', routes: [] }])).message).toMatch(
      /plugin 1: plugin name must be a non-empty string/,
    );
  });

  it('refuses an invalid route, naming the plugin and the route', async () => {
    const error = await loadError([
      {
        name: 'hooks',
        routes: [
          { type: 'GET', path: '/ok', handler: ok },
          { type: 'POST', path: '/x' },
        ],
      },
    ]);
    expect(error.message).toBe(
      'plugin "hooks" route 2 (POST /x): handler POST routes need a handler',
    );
    const badPath = await loadError([
      { name: 'hooks', routes: [{ type: 'GET', path: 'no-slash', handler: ok }] },
    ]);
    expect(badPath.message).toMatch(
      /^plugin "hooks" route 1 \(GET no-slash\): path must start with \//,
    );
    const badType = await loadError([
      { name: 'hooks', routes: [{ type: 'OPTIONS', path: '/x', handler: ok }] },
    ]);
    expect(badType.message).toMatch(/^plugin "hooks" route 1 \(OPTIONS \/x\): type/);
  });

  it.each([
    '/api/messaging/submit',
    '/api/tee',
    '/socket.io/x',
    '/API/Agents',
    '/metrics',
    '/api/docs',
    '/v1/chat/completions',
    '/V1/embeddings',
  ])('refuses a route on a path the server serves itself: %s', async (path) => {
    const error = await loadError([
      { name: 'sneaky', routes: [{ type: 'POST', path, handler: ok }] },
    ]);
    expect(error.message).toMatch(/^plugin "sneaky" .*the path is the server's own/);
  });

  it('allows paths that only look like a built-in prefix', async () => {
    const { table } = await load([
      { name: 'fine', routes: [{ type: 'GET', path: '/api/teeth', handler: ok }] },
    ]);
    expect(table.entries).toHaveLength(1);
  });

  it('refuses two routes with the same method and path for one agent, naming both plugins', async () => {
    const first = { name: 'first', routes: [{ type: 'POST', path: '/webhook', handler: ok }] };
    const second = { name: 'second', routes: [{ type: 'POST', path: '/webhook', handler: ok }] };
    const error = await loadError([first, second]);
    expect(error.message).toBe(
      'plugin "second": route POST /webhook of agent Ada is already declared by plugin "first"',
    );
    const self = await loadError([{ name: 'twice', routes: [first.routes[0], first.routes[0]] }]);
    expect(self.message).toMatch(/^plugin "twice": .* already declared by itself/);
  });

  it('allows the same path with another method, and the same plugin for two agents', async () => {
    const plugin = {
      name: 'both',
      routes: [
        { type: 'POST', path: '/webhook', handler: ok },
        { type: 'GET', path: '/webhook', handler: ok },
      ],
    };
    const { table } = await load([plugin], 2);
    expect(
      table.entries.map((entry) => `${entry.agent.character.name} ${entry.route.type}`),
    ).toEqual(['Ada POST', 'Ada GET', 'Bob POST', 'Bob GET']);
  });

  it('refuses a STATIC route whose filePath does not exist', async () => {
    const error = await loadError([
      { name: 'site', routes: [{ type: 'STATIC', path: '/s', filePath: '/nonexistent/parley' }] },
    ]);
    expect(error.message).toMatch(
      /^plugin "site": STATIC filePath \/nonexistent\/parley cannot be read \(ENOENT\)/,
    );
  });
});

describe('loadPlugins init', () => {
  it('runs init per agent with its settings and runtime, before any route serves', async () => {
    const calls: string[] = [];
    const ready = new Set<string>();
    const plugin: Plugin = {
      name: 'stateful',
      init: async (config, runtime) => {
        calls.push(`${runtime.character.name}:${config.GREETING}`);
        await Promise.resolve();
        ready.add(runtime.agentId);
      },
      routes: [
        {
          type: 'GET',
          path: '/ready',
          handler: (_req, res, runtime) => res.json({ ready: ready.has(runtime.agentId) }),
        },
      ],
    };
    const { app, agents } = await createPluginTestApp({
      characters: [
        { name: 'Ada', settings: { GREETING: 'hi Ada' } },
        { name: 'Bob', settings: { GREETING: 'hi Bob' } },
      ],
      plugins: [plugin],
    });
    expect(calls).toEqual(['Ada:hi Ada', 'Bob:hi Bob']);
    for (const agent of agents) {
      expect(await (await app.request(`/ready?agentId=${agent.agentId}`)).json()).toEqual({
        ready: true,
      });
    }
  });

  it('stops start-up when init fails: a ConfigError naming the plugin, the cause logged, later inits not run', async () => {
    let laterRan = false;
    const plugins = [
      { name: 'broken', init: () => Promise.reject(new Error('cannot reach the database')) },
      { name: 'later', init: () => void (laterRan = true) },
    ];
    const { logger, lines } = createMemoryLogger();
    const agents = createTestAgents(logger, { name: 'Ada' });
    const error = await loadPlugins({ agents, pluginsFor: () => plugins, logger }).catch(
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/^plugin "broken" failed to start for agent Ada/);
    expect((error as Error).message).not.toContain('database');
    expect(lines.find((line) => line.msg === 'plugin init failed')).toMatchObject({
      plugin: 'broken',
      err: { message: 'cannot reach the database' },
    });
    expect(laterRan).toBe(false);
  });

  it('validates every plugin before running any init', async () => {
    let initRan = false;
    await loadError([
      { name: 'good', init: () => void (initRan = true) },
      { name: 'bad', routes: [{ type: 'GET', path: '/x' }] },
    ]);
    expect(initRan).toBe(false);
  });
});
