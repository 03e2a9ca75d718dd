import { type IfBusy, ifBusySchema } from '@parley/core';
import type { Character } from '@parley/plugin-sdk';
import { agentIdOf } from './agent-id';

/** Who an agent is: its stable id and its character. What the messaging core needs of an agent. */
export interface AgentProfile {
  /** The agent's id (UUID): the character's `id`, else a UUID v5 of its name. */
  readonly agentId: string;
  /** The character, frozen. */
  readonly character: Readonly<Character> & { readonly name: string };
  /** What a message does while a reply to its channel runs, when the message does not say (the character's). */
  readonly ifBusy?: IfBusy;
}

/** The profile of the agent a character describes. */
export function toAgentProfile(character: Character): AgentProfile {
  // Read once here, not per message: a character built in code is not checked by the character file schema.
  const ifBusy = ifBusySchema.safeParse(character.ifBusy);
  return {
    agentId: agentIdOf(character),
    character: Object.freeze({ ...character }),
    ifBusy: ifBusy.success ? ifBusy.data : undefined,
  };
}
