import { createElizaModel } from './eliza-model';
import type { ModelProvider } from './model-provider';
import { createOpenAICompatibleModel } from './openai-compatible-model';

/**
 * The model the settings choose: the offline ELIZA responder, or an OpenAI-compatible endpoint. Derived from
 * the parsed settings in `config/` (`toModelSettings`).
 */
export type ModelSettings =
  | { provider: 'eliza' }
  | {
      provider: 'openai';
      baseUrl: string;
      model: string;
      apiKey?: string;
      timeoutMs: number;
      /** Offer tools natively (`tools` in the request); default true. */
      callsTools?: boolean;
      /** Ask for token usage at the end of the stream (`stream_options.include_usage`); default true. */
      includeUsage?: boolean;
    };

/** Creates the model that `settings` describe. */
export function createModel(settings: ModelSettings): ModelProvider {
  if (settings.provider === 'eliza') return createElizaModel();
  const { provider: _provider, ...options } = settings;
  return createOpenAICompatibleModel(options);
}
