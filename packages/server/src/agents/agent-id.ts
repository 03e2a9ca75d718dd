import { uuidV5 } from '@parley/plugin-sdk';

/**
 * Namespace of agent ids derived from names. Fixed forever: changing it would change every derived agent id.
 */
export const AGENT_ID_NAMESPACE = '4f1d6c2e-7a53-5b8e-9c0d-2e6f1a3b5c7d';

/** RFC 9562 UUID version 5 (SHA-1, name-based): the SDK's, so plugins and the server derive ids alike. */
export { uuidV5 };

/** The stable id of an agent: its character's `id`, else a UUID v5 of its name. */
export function agentIdOf(character: { id?: string; name: string }): string {
  return character.id?.toLowerCase() ?? uuidV5(character.name, AGENT_ID_NAMESPACE);
}
