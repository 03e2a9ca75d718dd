import { readFile } from 'node:fs/promises';
import type { Character } from '@parley/plugin-sdk';
import { toValidationIssues, uuidSchema } from '@parley/core';
import { closest } from 'fastest-levenshtein';
import { z } from 'zod';
import { ConfigError } from '../errors/config-error';

/** What a character file holds. Unknown keys are kept for plugins that read them. */
export const characterSchema = z.looseObject({
  name: z.string().trim().min(1, 'must not be empty').max(128),
  id: uuidSchema.optional(),
  system: z.string().optional(),
  bio: z.union([z.string(), z.array(z.string())]).optional(),
  settings: z.record(z.string(), z.string()).optional(),
  plugins: z.array(z.string()).optional(),
});

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
  const result = characterSchema.safeParse(value);
  if (result.success) return result.data;
  const issue = toValidationIssues(result.error)[0];
  throw new ConfigError(
    `character file ${source}: ${issue ? `${issue.path} ${issue.message}` : 'invalid character'}`,
  );
}

const CHARACTER_KEYS = Object.keys(characterSchema.shape);

/**
 * Reads a character file strictly: unreadable, not JSON, a bad field or an unknown key (`"sytem"`) is a
 * ConfigError naming the file, and for a key, the key and the nearest known one. Data for plugins belongs in
 * `settings`.
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
  if (json !== null && typeof json === 'object' && !Array.isArray(json)) {
    const unknown = Object.keys(json).find((key) => !CHARACTER_KEYS.includes(key));
    if (unknown !== undefined) {
      throw new ConfigError(
        `character file ${path}: unknown key "${unknown}" (did you mean "${closest(unknown, CHARACTER_KEYS)}"? ` +
          `known keys: ${CHARACTER_KEYS.join(', ')})`,
      );
    }
  }
  return parseCharacter(json, path);
}
