import { describe, expect, it } from 'vitest';
import { createLogger } from '../logger';
import { createMemoryLogger } from '../plugins/create-plugin-test-app';
import { toAgentProfile } from './agent-profile';
import { ParleyAgentRuntime, type AgentServices } from './agent-runtime';

const services: AgentServices = {
  sendMessage: () => Promise.resolve({ id: 'posted' }),
  scheduleMessage: () => Promise.reject(new Error('unused')),
  sendControl: () => undefined,
};

function runtimeOf(profile: ReturnType<typeof toAgentProfile>, env: Record<string, string> = {}) {
  return new ParleyAgentRuntime(profile, {
    env,
    serverUrl: () => 'http://localhost:4321',
    logger: createLogger('silent'),
    services,
  });
}

describe("an agent's own settings", () => {
  it('lets a plugin change its character settings (as elizaOS plugins do) without touching other agents', () => {
    const profile = toAgentProfile({ name: 'Ada', settings: { KEY: 'shared' } });
    const first = runtimeOf(profile);
    const second = runtimeOf(profile);
    first.character.settings!.githubConfig = 'mine';
    first.character.settings = { ...first.character.settings, KEY: 'changed' };
    expect(first.getSetting('KEY')).toBe('changed');
    expect(first.getSetting('githubConfig')).toBe('mine');
    expect(second.getSetting('KEY')).toBe('shared');
    expect(profile.character.settings).toEqual({ KEY: 'shared' });
  });

  it('copies object settings deeply: a plugin that changes one in place leaves the profile as it was', () => {
    const profile = toAgentProfile({ name: 'Ada', settings: { heartbeat: { enabled: false } } });
    const runtime = runtimeOf(profile);
    (runtime.character.settings!.heartbeat as { enabled: boolean }).enabled = true;
    expect(profile.character.settings).toEqual({ heartbeat: { enabled: false } });
  });

  it('setSetting sets, overrides the environment, removes, and keeps secrets apart', () => {
    const runtime = runtimeOf(toAgentProfile({ name: 'Ada' }), { TOKEN: 'from-env' });
    runtime.setSetting('TOKEN', 'set');
    expect(runtime.getSetting('TOKEN')).toBe('set');
    runtime.setSetting('TOKEN', undefined);
    expect(runtime.getSetting('TOKEN')).toBe('from-env');
    runtime.setSetting('API_KEY', 'sk-secret', true);
    expect(runtime.getSetting('API_KEY')).toBe('sk-secret');
    expect(runtime.character.secrets).toEqual({ API_KEY: 'sk-secret' });
    expect(runtime.character.settings).toEqual({});
  });

  it('never logs setting or secret values, whether the runtime or its character is logged', () => {
    const { logger, lines } = createMemoryLogger();
    const runtime = runtimeOf(
      toAgentProfile({ name: 'Ada', settings: { OPENAI_API_KEY: 'sk-live-123' } }),
    );
    runtime.setSetting('GITHUB_TOKEN', 'ghp_456', true);
    logger.info({ runtime, character: runtime.character }, 'plugin logs what it has');
    const text = JSON.stringify(lines);
    expect(text).not.toContain('sk-live-123');
    expect(text).not.toContain('ghp_456');
    expect(lines[0]).toMatchObject({
      runtime: { agentId: runtime.agentId, name: 'Ada' },
      character: { name: 'Ada', settings: { OPENAI_API_KEY: '[redacted]' } },
    });
  });
});
