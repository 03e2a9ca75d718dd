import type { Character } from '@parley/plugin-sdk';
import type { DEFAULTS } from '../../defaults';
import { isSecretName, looksLikeSecretValue } from '../../redaction/redact';

/** The bounds of one reply's loop (see `DEFAULTS.agentLoop`). */
export type AgentLoopLimits = { -readonly [Key in keyof typeof DEFAULTS.agentLoop]: number };

/**
 * Each bound's setting (the environment's, and a character's for one agent) and its range: a character cannot
 * lift the server's guarantees away.
 */
export const LOOP_SETTINGS = {
  maxSteps: { name: 'AGENT_MAX_STEPS', min: 0, max: 64 },
  toolTimeoutMs: { name: 'TOOL_TIMEOUT_MS', min: 1, max: 600_000 },
  maxParallelTools: { name: 'TOOL_MAX_PARALLEL', min: 1, max: 32 },
  maxToolCallsPerStep: { name: 'TOOL_MAX_CALLS_PER_STEP', min: 1, max: 128 },
  toolResultLimit: { name: 'TOOL_RESULT_LIMIT', min: 1, max: 1024 * 1024 },
  providerTimeoutMs: { name: 'PROVIDER_TIMEOUT_MS', min: 1, max: 60_000 },
  evaluatorTimeoutMs: { name: 'EVALUATOR_TIMEOUT_MS', min: 1, max: 600_000 },
} as const satisfies Record<keyof AgentLoopLimits, { name: string; min: number; max: number }>;

/**
 * One agent's bounds: the server's, each overridden by its character's setting of the same name when that is a
 * whole number within the bound's range (`AGENT_MAX_STEPS: "0"` makes an agent that only talks); a setting
 * that is not one is ignored.
 */
export function loopLimitsFor(
  character: Readonly<Character>,
  server: AgentLoopLimits,
): AgentLoopLimits {
  const limits = { ...server };
  for (const key of Object.keys(LOOP_SETTINGS) as (keyof AgentLoopLimits)[]) {
    const { name, min, max } = LOOP_SETTINGS[key];
    const raw = character.settings?.[name];
    if (raw === undefined) continue;
    const value = Number(raw);
    if (Number.isInteger(value) && value >= min && value <= max) limits[key] = value;
  }
  return limits;
}

/**
 * The values no tool result (nor log line, error or view) may show: the character's secrets (`secrets`, and
 * `settings.secrets` of a character built in code) and its secret-looking settings.
 */
export function secretsOf(character: Readonly<Character>): string[] {
  const nested = (character.settings as { secrets?: unknown } | undefined)?.secrets;
  const values = [
    ...Object.values(character.secrets ?? {}),
    ...(typeof nested === 'object' && nested !== null
      ? Object.values(nested as Record<string, unknown>)
      : []),
  ];
  for (const [key, value] of Object.entries(character.settings ?? {})) {
    // Text and numbers (a PIN); an object setting is configuration, not one secret value.
    if (isSecretName(key) && (typeof value === 'string' || typeof value === 'number')) {
      if (looksLikeSecretValue(String(value))) values.push(String(value));
    }
  }
  return values.filter((value): value is string => typeof value === 'string');
}

/** The server's own secrets: its token and every secret-looking setting of its environment. */
export function serverSecretsOf(
  env: Readonly<Record<string, string | undefined>>,
  authToken: string | undefined,
): string[] {
  const values = Object.entries(env)
    .filter(
      ([key, value]) =>
        isSecretName(key) && typeof value === 'string' && looksLikeSecretValue(value),
    )
    .map(([, value]) => value!);
  return authToken ? [authToken, ...values] : values;
}
