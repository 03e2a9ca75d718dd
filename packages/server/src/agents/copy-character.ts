import type { Character } from '@parley/plugin-sdk';

const REDACTED = '[redacted]';

function redactValues(
  values: Record<string, unknown> | undefined,
): Record<string, string> | undefined {
  if (!values || typeof values !== 'object') return undefined;
  return Object.fromEntries(Object.keys(values).map((key) => [key, REDACTED]));
}

/**
 * One agent's own copy of its character: `settings` and `secrets` are new objects, so a plugin that changes them
 * (elizaOS plugins keep their configuration there) touches neither other agents nor the frozen profile. Turned
 * into JSON (which is what a structured logger does) it shows setting names, never values.
 */
export function copyCharacter(character: Readonly<Character>): Character {
  const copy: Character = {
    ...character,
    settings: { ...character.settings },
    ...(character.secrets ? { secrets: { ...character.secrets } } : {}),
    ...(character.plugins ? { plugins: [...character.plugins] } : {}),
  };
  Object.defineProperty(copy, 'toJSON', {
    enumerable: false,
    value(this: Character) {
      return {
        ...this,
        settings: redactValues(this.settings),
        ...(this.secrets ? { secrets: redactValues(this.secrets) } : {}),
      };
    },
  });
  return copy;
}
