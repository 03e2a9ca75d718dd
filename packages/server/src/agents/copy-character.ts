import type { Character } from '@parley/plugin-sdk';
import { REDACTED } from '../redaction/redact';

function redactValues(
  values: Record<string, unknown> | undefined,
): Record<string, string> | undefined {
  if (!values || typeof values !== 'object') return undefined;
  return Object.fromEntries(Object.keys(values).map((key) => [key, REDACTED]));
}

/** A deep copy of lists and plain objects; anything else (text, numbers, a class instance) as it is. */
function copyValue<T>(value: T): T {
  if (Array.isArray(value)) return value.map(copyValue) as T;
  if (value === null || typeof value !== 'object') return value;
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, entry]) => [key, copyValue(entry)]),
  ) as T;
}

/**
 * One agent's own copy of its character: `settings` (deeply) and `secrets` are new objects, so a plugin that changes them
 * (elizaOS plugins keep their configuration there) touches neither other agents nor the frozen profile. Turned
 * into JSON (which is what a structured logger does) it shows setting names, never values.
 */
export function copyCharacter(character: Readonly<Character>): Character {
  const copy: Character = {
    ...character,
    // Deep: elizaOS settings may be objects (`heartbeat: {enabled}`) a plugin changes in place.
    settings: copyValue({ ...character.settings }),
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
