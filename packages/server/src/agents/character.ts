import { readFile } from 'node:fs/promises';
import type { Character, CharacterSetting } from '@parley/plugin-sdk';
import { ifBusySchema, toValidationIssues, uuidSchema } from '@parley/core';
import { closest } from 'fastest-levenshtein';
import { z } from 'zod';
import { ConfigError } from '../errors/config-error';
import { checkMcpSettings } from '../mcp/client/mcp-settings';

const stringOrList = z.union([z.string(), z.array(z.string())]);

/** One line of an example conversation: elizaOS writes the speaker as `user` (0.x) or `name` (1.x). */
const exampleLineSchema = z.looseObject({
  user: z.string().optional(),
  name: z.string().optional(),
  content: z.looseObject({ text: z.string().optional() }),
});

/** An example conversation: a list of lines, or (elizaOS 1.x) `{ examples: [...] }`. */
const exampleConversationSchema = z.union([
  z.array(exampleLineSchema),
  z.looseObject({ examples: z.array(exampleLineSchema) }),
]);

/**
 * What a character file holds: Parley's keys and those of elizaOS character files. Parley reads `name`, `id`,
 * `system`, `bio`, `lore`, `messageExamples`, `style` (the prompt), `settings` and `secrets` (`runtime.getSetting`;
 * `settings.secrets` joins `secrets`, never logged) and `plugins`. The other elizaOS keys
 * ({@link ACCEPTED_UNUSED_KEYS}) are checked for shape and kept for plugins that read them.
 */
export const characterSchema = z.looseObject({
  name: z.string().trim().min(1, 'must not be empty').max(128),
  id: uuidSchema.optional(),
  system: z.string().optional(),
  bio: stringOrList.optional(),
  lore: stringOrList.optional(),
  messageExamples: z.array(exampleConversationSchema).optional(),
  style: z
    .looseObject({
      all: stringOrList.optional(),
      chat: stringOrList.optional(),
      post: stringOrList.optional(),
    })
    .optional(),
  settings: z
    .record(z.string(), z.unknown())
    .refine(
      (settings) =>
        settings.secrets === undefined ||
        (typeof settings.secrets === 'object' &&
          settings.secrets !== null &&
          !Array.isArray(settings.secrets)),
      { message: 'must be an object of secret settings', path: ['secrets'] },
    )
    // Parley: the MCP servers whose tools the agent gets (elizaOS plugin-mcp's shape).
    .superRefine((settings, context) => checkMcpSettings(settings.mcp, context))
    .optional(),
  secrets: z.record(z.string(), z.unknown()).optional(),
  plugins: z.array(z.string()).optional(),
  /** Parley: what a channel message does while this agent's reply runs, when the message does not say. */
  ifBusy: ifBusySchema.optional(),
  // elizaOS keys Parley keeps but does not use.
  username: z.string().optional(),
  knowledge: z.array(z.unknown()).optional(),
  postExamples: z.array(z.string()).optional(),
  topics: z.array(z.string()).optional(),
  adjectives: z.array(z.string()).optional(),
  clients: z.array(z.string()).optional(),
  modelProvider: z.string().optional(),
  templates: z.record(z.string(), z.unknown()).optional(),
});

/** elizaOS character keys a character file may hold that nothing in Parley reads (one info line at start). */
export const ACCEPTED_UNUSED_KEYS = [
  'username',
  'knowledge',
  'postExamples',
  'topics',
  'adjectives',
  'clients',
  'modelProvider',
  'templates',
] as const;

/** A line of an example conversation, as Parley reads it. */
export interface CharacterExampleLine {
  /** Who speaks: elizaOS `user` (0.x) or `name` (1.x), placeholders such as `{{user1}}` included. */
  user?: string;
  name?: string;
  content: { text?: string };
}

/** The elizaOS parts of a character that Parley reads besides {@link Character}'s own. */
export interface CharacterPromptParts {
  lore?: string | string[];
  messageExamples?: (CharacterExampleLine[] | { examples: CharacterExampleLine[] })[];
  style?: { all?: string | string[]; chat?: string | string[]; post?: string | string[] };
}

/** The elizaOS keys Parley keeps but does not use that `character` holds, in file order. */
export function acceptedUnusedKeys(character: object): string[] {
  return Object.keys(character).filter((key) =>
    (ACCEPTED_UNUSED_KEYS as readonly string[]).includes(key),
  );
}

/** A setting value as `getSetting` returns it: text as is, numbers and booleans as text, the rest as JSON. */
export function settingText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

function toSettings(values: Record<string, unknown> | undefined): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const [key, value] of Object.entries(values ?? {})) {
    const text = settingText(value);
    if (text !== undefined) settings[key] = text;
  }
  return settings;
}

/**
 * The character as the server uses it: settings as the file gives them (`getSetting` reads them as text; elizaOS
 * plugins read some as objects), secrets as text, and elizaOS `settings.secrets` moved into `secrets` (read first
 * by `getSetting`, never logged); a `secrets` key of the file's own wins over it.
 */
function normalise(character: z.infer<typeof characterSchema>): Character {
  const { settings, secrets, ...rest } = character;
  const { secrets: nestedSecrets, ...plainSettings } = settings ?? {};
  const result: Character = { ...rest };
  if (settings !== undefined) result.settings = plainSettings as Record<string, CharacterSetting>;
  const nested =
    nestedSecrets !== null && typeof nestedSecrets === 'object' && !Array.isArray(nestedSecrets)
      ? (nestedSecrets as Record<string, unknown>)
      : {};
  if (nestedSecrets !== undefined || secrets !== undefined) {
    result.secrets = { ...toSettings(nested), ...toSettings(secrets) };
  }
  return result;
}

/** The agent that runs when no character is given. */
export const DEFAULT_CHARACTER: Character = {
  name: 'Eliza',
  system:
    'You are Eliza, a patient conversational partner. You reflect what people say back to them and ask ' +
    'questions that help them think.',
  bio: ['A Rogerian conversationalist in the tradition of the 1966 ELIZA program.'],
};

/** Validates a parsed character, naming `source` in the error. */
export function parseCharacter(value: unknown, source: string): Character {
  const checked = checkCharacterShape(value);
  if ('character' in checked) return checked.character;
  throw new ConfigError(`character file ${source}: ${checked.problem}`);
}

function checkCharacterShape(value: unknown): { character: Character } | { problem: string } {
  const result = characterSchema.safeParse(value);
  if (result.success) return { character: normalise(result.data) };
  const issue = toValidationIssues(result.error)[0];
  return { problem: issue ? `${issue.path} ${issue.message}` : 'invalid character' };
}

const CHARACTER_KEYS = Object.keys(characterSchema.shape);

/**
 * A character object's first key that no character file may hold (`"sytem"`), with what to say about it: the
 * nearest known key and the known keys.
 */
export function unknownCharacterKey(json: unknown): string | undefined {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return undefined;
  const unknown = Object.keys(json).find((key) => !CHARACTER_KEYS.includes(key));
  if (unknown === undefined) return undefined;
  return (
    `unknown key "${unknown}" (did you mean "${closest(unknown, CHARACTER_KEYS)}"? ` +
    `known keys: ${CHARACTER_KEYS.join(', ')})`
  );
}

/**
 * Checks a character exactly as a character file is checked (an unknown key, then the schema), without a file:
 * the character normalised, or the first problem in words. `POST /api/agents` uses it.
 */
export function checkCharacter(value: unknown): { character: Character } | { problem: string } {
  const unknown = unknownCharacterKey(value);
  return unknown === undefined ? checkCharacterShape(value) : { problem: unknown };
}

/**
 * Reads a character file strictly: unreadable, not JSON, a bad field or an unknown key (`"sytem"`) is a
 * ConfigError naming the file, and for a key, the key and the nearest known one. elizaOS character files are
 * accepted (see {@link characterSchema}). Data for plugins belongs in `settings`.
 */
export async function loadCharacterFile(path: string): Promise<Character> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigError(`character file ${path} cannot be read (${code})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`character file ${path} is not valid JSON: ${(error as Error).message}`);
  }
  const unknown = unknownCharacterKey(json);
  if (unknown !== undefined) throw new ConfigError(`character file ${path}: ${unknown}`);
  return parseCharacter(json, path);
}
