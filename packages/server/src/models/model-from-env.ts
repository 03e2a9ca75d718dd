import { parseSettings } from '../config/parse-settings';
import { modelSettingsSchema } from '../config/settings-schema';
import { createElizaModel } from './eliza-model';
import type { ModelProvider } from './model-provider';
import { createOpenAICompatibleModel } from './openai-compatible-model';

const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';

/** The model the settings choose: the offline ELIZA responder, or an OpenAI-compatible endpoint. */
export type ModelSettings =
  | { provider: 'eliza' }
  | { provider: 'openai'; baseUrl: string; model: string; apiKey?: string; timeoutMs: number };

/** The model settings that parsed settings stand for. */
export function toModelSettings(settings: {
  MODEL_PROVIDER: 'eliza' | 'openai';
  OPENAI_BASE_URL?: string | undefined;
  OPENAI_API_KEY?: string | undefined;
  MODEL?: string | undefined;
  MODEL_TIMEOUT_MS: number;
}): ModelSettings {
  if (settings.MODEL_PROVIDER === 'eliza') return { provider: 'eliza' };
  return {
    provider: 'openai',
    baseUrl: settings.OPENAI_BASE_URL ?? DEFAULT_OPENAI_BASE_URL,
    // The schema requires MODEL with the openai provider.
    model: settings.MODEL ?? '',
    timeoutMs: settings.MODEL_TIMEOUT_MS,
    ...(settings.OPENAI_API_KEY ? { apiKey: settings.OPENAI_API_KEY } : {}),
  };
}

/** Creates the model that `settings` describe. */
export function createModel(settings: ModelSettings): ModelProvider {
  if (settings.provider === 'eliza') return createElizaModel();
  const { provider: _provider, ...options } = settings;
  return createOpenAICompatibleModel(options);
}

/**
 * Picks the model from settings: `MODEL_PROVIDER` unset or `eliza` gives the offline model; `openai` gives an
 * OpenAI-compatible endpoint from `OPENAI_BASE_URL` (default `https://api.openai.com/v1`), `OPENAI_API_KEY`,
 * `MODEL` (required) and `MODEL_TIMEOUT_MS` (default 60000). A bad setting is a ConfigError naming it; the
 * API key never appears in one. The rules live in the one settings schema (`config/settings-schema.ts`).
 *
 * @example
 * const model = createModelFromEnv(config.env);
 */
export function createModelFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): ModelProvider {
  return createModel(toModelSettings(parseSettings(modelSettingsSchema, env)));
}
