import { ConfigError } from '../config/config-error';
import { createElizaModel } from './eliza-model';
import type { ModelProvider } from './model-provider';
import { createOpenAICompatibleModel } from './openai-compatible-model';

const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';
const DEFAULT_TIMEOUT_MS = 60_000;

function readBaseUrl(value: string | undefined): string {
  const text = value?.trim() || DEFAULT_OPENAI_BASE_URL;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError('OPENAI_BASE_URL is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`OPENAI_BASE_URL must be an http(s) URL, got ${url.protocol}//…`);
  }
  return text;
}

function readTimeout(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return DEFAULT_TIMEOUT_MS;
  const timeoutMs = Number(value);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
    throw new ConfigError(
      `MODEL_TIMEOUT_MS must be a positive whole number of milliseconds, got "${value}"`,
    );
  }
  return timeoutMs;
}

/**
 * Picks the model from settings: `MODEL_PROVIDER` unset or `eliza` gives the offline model; `openai` gives an
 * OpenAI-compatible endpoint from `OPENAI_BASE_URL` (default `https://api.openai.com/v1`), `OPENAI_API_KEY`,
 * `MODEL` (required) and `MODEL_TIMEOUT_MS` (default 60000). A bad setting is a ConfigError naming it; the
 * API key never appears in one.
 *
 * @example
 * const model = createModelFromEnv(config.env);
 */
export function createModelFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): ModelProvider {
  const provider = env.MODEL_PROVIDER?.trim().toLowerCase() || 'eliza';
  if (provider === 'eliza') return createElizaModel();
  if (provider !== 'openai') {
    throw new ConfigError(
      `MODEL_PROVIDER must be "eliza" or "openai", got "${env.MODEL_PROVIDER}"`,
    );
  }
  const model = env.MODEL?.trim();
  if (!model) {
    throw new ConfigError(
      'MODEL is required when MODEL_PROVIDER=openai (for example MODEL=gpt-4o-mini)',
    );
  }
  const apiKey = env.OPENAI_API_KEY?.trim();
  return createOpenAICompatibleModel({
    baseUrl: readBaseUrl(env.OPENAI_BASE_URL),
    model,
    timeoutMs: readTimeout(env.MODEL_TIMEOUT_MS),
    ...(apiKey ? { apiKey } : {}),
  });
}
