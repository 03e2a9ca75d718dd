import { describe, expect, it } from 'vitest';
import { AGENT_ID_NAMESPACE, agentIdOf, uuidV5 } from './agent-id';

const DNS_NAMESPACE = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';

describe('agent ids', () => {
  it('computes RFC 9562 version 5 UUIDs', () => {
    // Known vector: uuid5(NAMESPACE_DNS, 'www.example.com') from Python's uuid module.
    expect(uuidV5('www.example.com', DNS_NAMESPACE)).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
  });

  it('derives the same id from the same name, across calls and processes', () => {
    expect(agentIdOf({ name: 'Eliza' })).toBe(agentIdOf({ name: 'Eliza' }));
    expect(agentIdOf({ name: 'Eliza' })).toBe(uuidV5('Eliza', AGENT_ID_NAMESPACE));
    expect(agentIdOf({ name: 'Eliza' })).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });

  it('gives different names different ids', () => {
    expect(agentIdOf({ name: 'Eliza' })).not.toBe(agentIdOf({ name: 'eliza' }));
  });

  it("uses the character's own id when it has one", () => {
    const id = '3F2504E0-4F89-41D3-9A0C-0305E82C3301';
    expect(agentIdOf({ name: 'Eliza', id })).toBe(id.toLowerCase());
  });
});
