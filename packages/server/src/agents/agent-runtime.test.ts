import { describe, expect, it } from 'vitest';
import { createLogger } from '../logger';
import { toAgentProfile } from './agent-profile';
import { createAgentProfiles } from './agent-registry';
import { ParleyAgentRuntime, type AgentServices } from './agent-runtime';
import { ConfigError } from '../errors/config-error';
import { createPluginRuntime } from '../plugins/loading/create-plugin-runtime';

const logger = createLogger('silent');
const services: AgentServices = {
  sendMessage: () => Promise.resolve({ id: 'posted' }),
  scheduleMessage: () => Promise.reject(new Error('unused')),
  sendControl: () => undefined,
};

function runtime(settings: Record<string, string>, env: Record<string, string | undefined>) {
  return new ParleyAgentRuntime(toAgentProfile({ name: 'Ada', settings }), {
    env,
    serverUrl: () => 'http://localhost:4321',
    logger,
    services,
  });
}

describe('runtime settings', () => {
  it("prefers the character's setting over the environment", () => {
    expect(runtime({ KEY: 'character' }, { KEY: 'env' }).getSetting('KEY')).toBe('character');
  });

  it('falls back to the environment, then to undefined', () => {
    expect(runtime({}, { KEY: 'env' }).getSetting('KEY')).toBe('env');
    expect(runtime({}, {}).getSetting('KEY')).toBeUndefined();
  });

  it('treats empty values as unset', () => {
    expect(runtime({ KEY: '' }, { KEY: 'env' }).getSetting('KEY')).toBe('env');
    expect(runtime({}, { KEY: '' }).getSetting('KEY')).toBeUndefined();
  });

  it("answers SERVER_URL with the server's own address when it is empty", () => {
    expect(runtime({}, { SERVER_URL: '' }).getSetting('SERVER_URL')).toBe('http://localhost:4321');
    expect(runtime({}, { SERVER_URL: 'http://example.test' }).getSetting('SERVER_URL')).toBe(
      'http://example.test',
    );
  });
});

describe('runtime components', () => {
  it('reject with UNAVAILABLE on a runtime built without a database, through a plugin’s view too', async () => {
    const agent = runtime({}, {});
    const view = createPluginRuntime(agent, 'plugin-cron');
    await expect(view.getComponent(agent.agentId, 'cron_job_index')).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringContaining('no database for components'),
    });
    await expect(view.getComponents(agent.agentId)).rejects.toMatchObject({ code: 'UNAVAILABLE' });
  });
});

describe('agent registry', () => {
  it('runs the built-in Eliza when no character is given', () => {
    const agents = createAgentProfiles([]);
    expect(agents.summaries()).toEqual([{ id: agents.defaultAgent.agentId, name: 'Eliza' }]);
  });

  it('keeps the order given and makes the first agent the default', () => {
    const agents = createAgentProfiles([{ name: 'B' }, { name: 'A' }]);
    expect(agents.list().map((agent) => agent.character.name)).toEqual(['B', 'A']);
    expect(agents.defaultAgent.character.name).toBe('B');
  });

  it('refuses two agents with the same id', () => {
    expect(() => createAgentProfiles([{ name: 'Same' }, { name: 'Same' }])).toThrow(ConfigError);
  });

  it('answers NOT_FOUND for an unknown agent', () => {
    const agents = createAgentProfiles([]);
    expect(() => agents.get('00000000-0000-0000-0000-000000000001')).toThrow(/Unknown agent/);
  });
});

describe("elizaOS's runtime.services", () => {
  it('is the map getService reads: what a plugin registers there (as its own tests do) is found, through its view too', async () => {
    const agent = runtime({}, {});
    class Probe {
      static serviceType = 'probe';
      static start() {
        return Promise.resolve(new Probe());
      }
      stopped = false;
      stop() {
        this.stopped = true;
        return Promise.resolve();
      }
    }
    await agent.registerService(Probe);
    const started = agent.getService<Probe>('probe')!;
    expect(started).toBeInstanceOf(Probe);
    expect(agent.services.get('probe')).toEqual([started]);
    // @elizaos/plugin-knowledge's suite: runtime.services.set(type, [service]) on the runtime it is given.
    const view = createPluginRuntime(agent, 'knowledge');
    const replaced = new Probe();
    // Not in the SDK's type (plugins written for Parley use registerService), but there for elizaOS's plugins.
    (view as unknown as ParleyAgentRuntime).services.set('probe', [replaced]);
    expect(agent.getService('probe')).toBe(replaced);
    expect(agent.hasService('probe')).toBe(true);
    await agent.stopServices();
    expect(replaced.stopped).toBe(true);
    expect(agent.hasService('probe')).toBe(false);
  });
});
