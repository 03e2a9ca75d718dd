import { readFile } from 'node:fs/promises';
import type { Character } from '@parley/plugin-sdk';
import { closest } from 'fastest-levenshtein';
import { characterSchema, parseCharacter } from '../agents/character';
import { ConfigError } from './config-error';

const CHARACTER_KEYS = Object.keys(characterSchema.shape);

/**
 * Reads a character file strictly: unreadable, not JSON, a bad field or an unknown key (`"sytem"`) is a
 * ConfigError naming the file, and for a key, the key and the nearest known one. Data for plugins belongs in
 * `settings`.
 */
export async function loadCharacter(path: string): Promise<Character> {
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
