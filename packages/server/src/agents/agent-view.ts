import type { Character } from '@parley/plugin-sdk';
import type { AgentAbilities } from './agent-abilities';
import { settingText } from './character';
import { redactText, redactValue, REDACTED } from '../redaction/redact';

/** What every secret value is replaced by in an answer. */
export const MASKED = REDACTED;

/** An agent's status, as elizaOS writes it: `active` answers, `inactive` (stopped) does not. */
export type AgentStatus = 'active' | 'inactive';

/** Where an agent comes from: the server's configuration (character files) or `POST /api/agents`. */
export type AgentSource = 'configuration' | 'api';

/** The facts of an agent besides its character. */
export interface AgentFacts {
  agentId: string;
  character: Readonly<Character>;
  abilities?: AgentAbilities;
  stopped: boolean;
  source: AgentSource;
  createdAt: Date;
  updatedAt: Date;
}

/** The values of a character's `secrets`, as text. */
function secretValuesOf(character: Readonly<Character>): string[] {
  return Object.values(character.secrets ?? {})
    .map((value) => settingText(value))
    .filter((text): text is string => text !== undefined && text.length > 0);
}

/**
 * The character as an answer may show it: every value of `secrets` replaced by {@link MASKED} (names kept), and
 * the rest as the one redaction cleans every value that leaves the server (`redaction/redact.ts`): settings whose
 * name looks secret (`OPENAI_API_KEY`, `SMTP_PASS`, `PASSPHRASE`, an MCP server's `headers.Authorization`…),
 * URL passwords (`postgres://user:pw@host`), secret query parameters (`?api_key=`), the argument after a secret
 * flag (`args: ["--api-key", X]`), `Bearer` tokens, and any text holding one of its secrets or the server's.
 */
export function maskCharacter(character: Readonly<Character>): Record<string, unknown> {
  const { secrets, ...rest } = character;
  const masked = redactValue(rest as Record<string, unknown>, secretValuesOf(character));
  if (secrets) {
    masked.secrets = Object.fromEntries(Object.keys(secrets).map((key) => [key, MASKED]));
  }
  return masked;
}

function statusOf(facts: AgentFacts): AgentStatus {
  return facts.stopped ? 'inactive' : 'active';
}

/** The first line of a character's bio (elizaOS lists agents with it). */
function bioLine(character: Readonly<Character>): string {
  const bio = (character as { bio?: unknown }).bio;
  if (typeof bio === 'string') return bio;
  return Array.isArray(bio) && typeof bio[0] === 'string' ? bio[0] : '';
}

/** One agent as `GET /api/agents` lists it: elizaOS's minimal agent. */
export function agentListItem(facts: AgentFacts) {
  return {
    id: facts.agentId,
    name: facts.character.name,
    characterName: facts.character.name,
    // Redacted as the details are: a bio may quote a secret the character holds.
    bio: redactText(bioLine(facts.character), secretValuesOf(facts.character)),
    status: statusOf(facts),
  };
}

/**
 * One agent as `GET /api/agents/{agentId}` answers it: elizaOS's `Agent` (the character's fields, `enabled`,
 * `status`, `createdAt` and `updatedAt` in epoch ms) and Parley's own: the character again as `character`, the
 * plugins that brought it abilities, its actions, and where it comes from. Secrets masked throughout.
 */
export function agentDetails(facts: AgentFacts) {
  const character = maskCharacter(facts.character);
  const actions = facts.abilities?.actions ?? [];
  const plugins = new Set<string>([
    ...actions.map((action) => action.pluginName),
    ...(facts.abilities?.providers ?? []).map((provider) => provider.pluginName),
    ...(facts.abilities?.evaluators ?? []).map((evaluator) => evaluator.pluginName),
  ]);
  return {
    ...character,
    id: facts.agentId,
    name: facts.character.name,
    enabled: !facts.stopped,
    status: statusOf(facts),
    createdAt: facts.createdAt.getTime(),
    updatedAt: facts.updatedAt.getTime(),
    source: facts.source,
    character,
    loadedPlugins: [...plugins].sort(),
    actions: actions.map(({ action, toolName, pluginName }) => ({
      name: action.name,
      toolName,
      description: action.description ?? '',
      plugin: pluginName,
    })),
  };
}
