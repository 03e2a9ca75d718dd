import { DEFAULTS } from '../defaults';
import { createModel, type ModelSettings } from '../models/model-from-env';
import type { ModelProvider } from '../models/model-provider';
import { parseSettings } from './parse-settings';
import { modelSettingsSchema } from './settings-schema';

/** The model settings that parsed settings stand for. */
export function toModelSettings(settings: {
  MODEL_PROVIDER: 'eliza' | 'openai';
  OPENAI_BASE_URL?: string | undefined;
  OPENAI_API_KEY?: string | undefined;
  MODEL?: string | undefined;
  MODEL_TIMEOUT_MS: number;
  MODEL_TOOLS: boolean;
  MODEL_INCLUDE_USAGE: boolean;
}): ModelSettings {
  if (settings.MODEL_PROVIDER === 'eliza') return { provider: 'eliza' };
  return {
    provider: 'openai',
    baseUrl: settings.OPENAI_BASE_URL ?? DEFAULTS.openaiBaseUrl,
    // The schema requires MODEL with the openai provider.
    model: settings.MODEL ?? '',
    timeoutMs: settings.MODEL_TIMEOUT_MS,
    callsTools: settings.MODEL_TOOLS,
    includeUsage: settings.MODEL_INCLUDE_USAGE,
    ...(settings.OPENAI_API_KEY ? { apiKey: settings.OPENAI_API_KEY } : {}),
  };
}

/**
 * Picks the model from the model settings alone, for a server built in code: `MODEL_PROVIDER` unset or `eliza`
 * gives the offline model; `openai` gives an OpenAI-compatible endpoint from `OPENAI_BASE_URL` (default
 * `https://api.openai.com/v1`), `OPENAI_API_KEY`, `MODEL` (required) and `MODEL_TIMEOUT_MS` (default 60000).
 * A bad setting is a ConfigError naming it; the API key never appears in one. The rules are the settings
 * schema's; `loadConfig` reads them with every other setting (`config.model`), so the app never reads them
 * twice.
 *
 * @example
 * const model = createModelFromEnv(process.env);
 */
export function createModelFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): ModelProvider {
  return createModel(toModelSettings(parseSettings(modelSettingsSchema, env)));
}
