import { describe, expect, it } from 'vitest';
import { toAgentProfile } from '../../agents/agent-profile';
import {
  MAX_TOOL_DESCRIPTION_LENGTH,
  MAX_TOOL_NAME_LENGTH,
  agentToolsOf,
  toolNameOf,
} from './agent-tools';

const MODEL_SAFE = /^[A-Za-z0-9_-]{1,64}$/;

describe('agent tool names', () => {
  it('keeps what models accept and turns the rest into one underscore', () => {
    expect(toolNameOf('Ada Lovelace')).toBe('Ada_Lovelace');
    expect(toolNameOf('Élodie Ørsted-Søn')).toBe('Elodie_rsted-S_n');
    expect(toolNameOf('  "quoted" <agent>!  ')).toBe('quoted_agent');
    expect(toolNameOf('日本語')).toBe('agent');
    expect(toolNameOf('x'.repeat(300))).toHaveLength(MAX_TOOL_NAME_LENGTH);
  });

  it('are unique without regard to case, stay model-safe, and are the same for the same agents', () => {
    const characters = ['Bob', 'bob', 'BOB!', 'b'.repeat(70), 'B'.repeat(70), '???', '!!!'];
    const profiles = characters.map((name) => toAgentProfile({ name }));
    const names = agentToolsOf(profiles).map((tool) => tool.name);
    expect(names.slice(0, 3)).toEqual(['Bob', 'bob_2', 'BOB_3']);
    expect(names.slice(5)).toEqual(['agent', 'agent_2']);
    expect(new Set(names.map((name) => name.toLowerCase())).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(MODEL_SAFE);
    expect(agentToolsOf(profiles).map((tool) => tool.name)).toEqual(names);
  });

  it('describe the agent by its bio, cut at the bound', () => {
    const [short, long, none] = agentToolsOf([
      toAgentProfile({ name: 'Ada', bio: ['Writes programs.', '  Counts   Bernoulli numbers. '] }),
      toAgentProfile({ name: 'Verbose', bio: 'word '.repeat(1000) }),
      toAgentProfile({ name: 'Quiet' }),
    ]);
    expect(short!.description).toBe(
      'Send a message to the agent Ada and get its reply. Writes programs. Counts Bernoulli numbers.',
    );
    expect(long!.description).toHaveLength(MAX_TOOL_DESCRIPTION_LENGTH);
    expect(long!.description.endsWith('…')).toBe(true);
    expect(none!.description).toBe('Send a message to the agent Quiet and get its reply.');
  });
});
