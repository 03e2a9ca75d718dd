import { defineProvider } from '@parley/plugin-sdk';
import { describe, expect, it } from 'vitest';
import { AgentAbilities } from '../../agents/agent-abilities';
import { createLogger } from '../../logger';
import { contextAction } from './context-action';

const options = { timeoutMs: 1000, logger: createLogger('silent'), values: () => ({}) };
const runtime = {} as never;
const provider = (name: string, extra = {}) =>
  defineProvider({ name, dynamic: true, get: () => ({ text: name }), ...extra });

describe('READ_CONTEXT', () => {
  it('is offered only for public dynamic providers, and its input is compiled once per set of them', () => {
    const abilities = new AgentAbilities();
    abilities.addProvider(defineProvider({ name: 'ALWAYS', get: () => ({}) }), runtime, 'p');
    expect(contextAction(abilities, options)).toBeUndefined();
    abilities.addProvider(provider('PRIVATE', { private: true }), runtime, 'p');
    expect(contextAction(abilities, options)).toBeUndefined();

    abilities.addProvider(provider('HANDBOOK'), runtime, 'p');
    const first = contextAction(abilities, options)!;
    // Every reply builds the action; the schema is not compiled again.
    expect(contextAction(abilities, options)!.input).toBe(first.input);
    expect(first.input.check({ providers: ['HANDBOOK'] }).ok).toBe(true);
    expect(first.input.check({ providers: ['PRIVATE'] }).ok).toBe(false);

    // A provider added later (a plugin's runtime.registerProvider) is offered from then on.
    abilities.addProvider(provider('CALENDAR'), runtime, 'p');
    const next = contextAction(abilities, options)!;
    expect(next.input).not.toBe(first.input);
    expect(next.input.check({ providers: ['CALENDAR'] }).ok).toBe(true);
  });
});
