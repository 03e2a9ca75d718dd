import type { Character } from '@parley/plugin-sdk';
import { agentIdOf } from './agent-id';

/** Who an agent is: its stable id and its character. What the messaging core needs of an agent. */
export interface AgentProfile {
  /** The agent's id (UUID): the character's `id`, else a UUID v5 of its name. */
  readonly agentId: string;
  /** The character, frozen. */
  readonly character: Readonly<Character> & { readonly name: string };
}

/** The profile of the agent a character describes. */
export function toAgentProfile(character: Character): AgentProfile {
  return { agentId: agentIdOf(character), character: Object.freeze({ ...character }) };
}
