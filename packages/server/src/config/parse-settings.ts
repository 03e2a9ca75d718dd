import type { z } from 'zod';
import { ConfigError } from '../errors/config-error';
import { maskSetting } from './mask-setting';

/**
 * Parses `env` with one of the settings schemas. The first problem becomes a ConfigError of one line naming the
 * setting and, unless it is a secret, the value given: `PORT must be a whole number from 0 to 65535, got "abc"`.
 */
export function parseSettings<T extends z.ZodType>(
  schema: T,
  env: Readonly<Record<string, string | undefined>>,
): z.output<T> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const name = String(issue?.path[0] ?? 'a setting');
  const value = env[name]?.trim();
  const shown = value && name !== 'WALLET_SECRET_SALT' ? `, got "${maskSetting(name, value)}"` : '';
  throw new ConfigError(`${name} ${issue?.message ?? 'is invalid'}${shown}`);
}
