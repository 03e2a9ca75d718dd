import type { Character } from '@parley/plugin-sdk';
import type { DEFAULTS } from '../../defaults';

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

/** Setting names whose values are secrets, besides everything under `secrets`. */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PRIVATE|CREDENTIAL|SALT/i;

/** The values no tool result may show: the character's secrets and its secret-looking settings. */
export function secretsOf(character: Readonly<Character>): string[] {
  const values = Object.values(character.secrets ?? {});
  for (const [key, value] of Object.entries(character.settings ?? {})) {
    // Text and numbers (a PIN); an object setting is configuration, not one secret value.
    if (SECRET_NAME.test(key) && (typeof value === 'string' || typeof value === 'number')) {
      values.push(String(value));
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
    .filter(([key, value]) => SECRET_NAME.test(key) && typeof value === 'string')
    .map(([, value]) => value!);
  return authToken ? [authToken, ...values] : values;
}
