import type { AgentRuntime, Plugin, PluginServiceClass } from '@parley/plugin-sdk';
import { describe, expect, it } from 'vitest';
import { createPluginTestApp } from '../create-plugin-test-app';

/** An elizaOS-style service: static serviceType and start(runtime). */
class CounterService {
  static serviceType = 'counter';
  count = 0;
  constructor(readonly runtime: AgentRuntime) {}
  static start(runtime: AgentRuntime) {
    return new CounterService(runtime);
  }
}

describe('plugins on the runtime', () => {
  it('gives services registered by a plugin, events and its own settings to routes, per agent', async () => {
    const seen: string[] = [];
    const plugin = {
      name: 'eliza-style',
      services: [CounterService as unknown as PluginServiceClass],
      events: {
        COUNTED: [
          (params: Record<string, unknown>) => {
            seen.push(String(params.by));
          },
        ],
      },
      init(_config: Record<string, string>, runtime: AgentRuntime) {
        // What @elizaos/plugin-github does with its validated configuration.
        runtime.character.settings = runtime.character.settings ?? {};
        (runtime.character.settings as Record<string, unknown>).pluginConfig = {
          owner: runtime.character.name,
        };
      },
      routes: [
        {
          type: 'POST',
          path: '/count',
          handler: async (_req, res, runtime) => {
            const counter = runtime.getService<CounterService>('counter')!;
            counter.count += 1;
            await runtime.emitEvent('COUNTED', { by: runtime.character.name });
            const config = (
              runtime.character.settings as unknown as Record<string, { owner: string }>
            ).pluginConfig;
            res.json({ count: counter.count, owner: config?.owner });
          },
        },
      ],
    } as Plugin;
    const { app, agents } = await createPluginTestApp({
      plugins: [plugin],
      characters: [{ name: 'Ada' }, { name: 'Bob' }],
    });
    const post = (agent: number) =>
      app.request(`/count?agentId=${agents[agent]!.agentId}`, { method: 'POST' });
    expect(await (await post(0)).json()).toEqual({ count: 1, owner: 'Ada' });
    expect(await (await post(0)).json()).toEqual({ count: 2, owner: 'Ada' });
    expect(await (await post(1)).json()).toEqual({ count: 1, owner: 'Bob' });
    expect(seen).toEqual(['Ada', 'Ada', 'Bob']);
    expect(agents[0]!.hasService('counter')).toBe(true);
  });

  it('stops start-up when init uses a runtime member Parley lacks, naming the member and the plugin', async () => {
    const plugin = {
      name: 'needs-memory',
      async init(_config: Record<string, string>, runtime: AgentRuntime) {
        await (runtime as unknown as { getTasks(query: object): Promise<unknown> }).getTasks({});
      },
    } as Plugin;
    await expect(createPluginTestApp({ plugins: [plugin] })).rejects.toThrow(
      /plugin "needs-memory" failed to start for agent Ada \(plugin "needs-memory" uses runtime\.getTasks, which Parley does not offer/,
    );
  });

  it('answers 500 and logs the member and the plugin when a route uses one', async () => {
    const plugin = {
      name: 'needs-model',
      routes: [
        {
          type: 'GET',
          path: '/think',
          handler: async (_req, res, runtime) => {
            const found = await (
              runtime as unknown as { getCache(key: string): Promise<unknown> }
            ).getCache('k');
            res.json({ found });
          },
        },
      ],
    } as Plugin;
    const { app, waitForLine } = await createPluginTestApp({ plugins: [plugin] });
    const response = await app.request('/think');
    expect(response.status).toBe(500);
    const line = await waitForLine((entry) => entry.msg === 'plugin route failed');
    expect(JSON.stringify(line.err)).toContain('plugin \\"needs-model\\" uses runtime.getCache');
  });

  it('starts without a service that fails, logs why, and warns about parts Parley does not use', async () => {
    class Broken {
      static serviceType = 'broken';
      static start(runtime: AgentRuntime) {
        return (runtime as unknown as { getWorld(id: string): unknown }).getWorld('x');
      }
    }
    const plugin = {
      name: 'partial',
      actions: [{ name: 'HELLO', description: 'greets', handler: () => ({ success: true }) }],
      models: { TEXT_SMALL: () => 'hi' },
      services: [Broken as unknown as PluginServiceClass],
    } as unknown as Plugin;
    const { agents, lines } = await createPluginTestApp({ plugins: [plugin] });
    expect(agents[0]!.getService('broken')).toBeNull();
    expect(agents[0]!.actions.map((action) => action.name)).toEqual(['HELLO']);
    expect(lines.map((line) => line.msg)).toEqual(
      expect.arrayContaining([
        expect.stringContaining('uses runtime.getWorld, which Parley does not offer'),
        expect.stringContaining('plugin declares models, which Parley does not use'),
      ]),
    );
  });

  it('stops start-up on an action without a handler, a duplicate action or a schema that does not compile', async () => {
    const handler = () => ({ success: true });
    const cases: [Plugin[], RegExp][] = [
      [
        [{ name: 'a', actions: [{ name: 'X' }] } as unknown as Plugin],
        /an action needs a name and a handler/,
      ],
      [
        [
          { name: 'a', actions: [{ name: 'X', description: '', handler }] },
          { name: 'b', actions: [{ name: 'X', description: '', handler }] },
        ],
        /plugin "b": action X is already declared by plugin "a"/,
      ],
      [
        [
          {
            name: 'a',
            actions: [{ name: 'X', description: '', handler, parameters: { type: 'nope' } }],
          },
        ],
        /the parameters of action X are not a valid schema/,
      ],
    ];
    for (const [plugins, message] of cases) {
      await expect(createPluginTestApp({ plugins })).rejects.toThrow(message);
    }
  });
});
