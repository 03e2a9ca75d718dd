import type { Character } from '@parley/plugin-sdk';
import type { AgentAbilities } from './agent-abilities';
import { settingText } from './character';

/** What every secret value is replaced by in an answer. */
export const MASKED = '[redacted]';

/** Setting names whose values are secrets wherever they appear (`settings`, `settings.mcp`'s servers…). */
const SECRET_NAME =
  /key|secret|token|password|passwd|credential|private|salt|auth|cookie|signature/i;

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

function maskValue(value: unknown, secrets: ReadonlySet<string>, depth: number): unknown {
  if (typeof value === 'string') return secrets.has(value) ? MASKED : value;
  if (value === null || typeof value !== 'object') return value;
  // Deeper than any character needs: masked whole rather than walked without bound.
  if (depth > 8) return MASKED;
  if (Array.isArray(value)) return value.map((item) => maskValue(item, secrets, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      SECRET_NAME.test(key) && item !== null && typeof item !== 'boolean'
        ? MASKED
        : maskValue(item, secrets, depth + 1),
    ]),
  );
}

/**
 * The character as an answer may show it: every value of `secrets` replaced by {@link MASKED} (names kept),
 * every setting whose name looks secret (`OPENAI_API_KEY`, an MCP server's `headers.Authorization`…) too, and
 * any other text equal to one of its secrets. Never a secret value, whatever the character holds.
 */
export function maskCharacter(character: Readonly<Character>): Record<string, unknown> {
  const secretValues = new Set(
    Object.values(character.secrets ?? {})
      .map((value) => settingText(value))
      .filter((text): text is string => text !== undefined && text.length > 0),
  );
  const { secrets, ...rest } = character;
  const masked = maskValue(rest, secretValues, 0) as Record<string, unknown>;
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
    bio: bioLine(facts.character),
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
