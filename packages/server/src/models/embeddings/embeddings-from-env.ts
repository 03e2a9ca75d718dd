import { ConfigError } from '../../errors/config-error';
import type { EmbeddingProvider } from './embedding-provider';
import { createHashEmbeddings } from './hash-embeddings';
import { createOpenAICompatibleEmbeddings } from './openai-compatible-embeddings';

/** The embedding settings, as parsed (`EMBEDDING_*`), with the chat model's to default from. */
export interface EmbeddingSettings {
  /** The embedding model's name at an OpenAI-compatible endpoint; unset: the offline embedder. */
  EMBEDDING_MODEL?: string | undefined;
  /** Its base address; default: `OPENAI_BASE_URL` when the chat model is OpenAI-compatible, else OpenAI's. */
  EMBEDDING_URL?: string | undefined;
  /** Its key; default: `OPENAI_API_KEY`, only when the embeddings go to the chat model's own address. */
  EMBEDDING_API_KEY?: string | undefined;
  /** The vectors' length, when known (sent as `dimensions`); else learnt from the first answer. */
  EMBEDDING_DIMENSIONS?: number | undefined;
  EMBEDDING_TIMEOUT_MS?: number | undefined;
  EMBEDDING_BATCH_SIZE?: number | undefined;
  MODEL_PROVIDER?: string | undefined;
  OPENAI_BASE_URL?: string | undefined;
  OPENAI_API_KEY?: string | undefined;
}

const OPENAI_URL = 'https://api.openai.com/v1';

/** A whole number setting within [min, max]; a ConfigError naming it otherwise. */
function whole(
  env: Record<string, string | number | undefined>,
  name: string,
  min: number,
  max: number,
) {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = typeof raw === 'number' ? raw : Number(String(raw).trim());
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}`);
  }
  return value;
}

function parsed(env: Record<string, string | number | undefined>): EmbeddingSettings {
  const text = (name: string) => {
    const value = env[name];
    return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
  };
  return {
    EMBEDDING_MODEL: text('EMBEDDING_MODEL'),
    EMBEDDING_URL: text('EMBEDDING_URL'),
    EMBEDDING_API_KEY: text('EMBEDDING_API_KEY'),
    EMBEDDING_DIMENSIONS: whole(env, 'EMBEDDING_DIMENSIONS', 1, 16_000),
    EMBEDDING_TIMEOUT_MS: whole(env, 'EMBEDDING_TIMEOUT_MS', 1, 600_000),
    EMBEDDING_BATCH_SIZE: whole(env, 'EMBEDDING_BATCH_SIZE', 1, 2_048),
    MODEL_PROVIDER: text('MODEL_PROVIDER'),
    OPENAI_BASE_URL: text('OPENAI_BASE_URL'),
    OPENAI_API_KEY: text('OPENAI_API_KEY'),
  };
}

/**
 * The embedder the settings choose: without `EMBEDDING_MODEL`, the offline one; with it, an OpenAI-compatible
 * endpoint at `EMBEDDING_URL`, else at the chat model's `OPENAI_BASE_URL` (Ollama's `http://127.0.0.1:11434/v1`,
 * vLLM's `:8000/v1`, LM Studio's `:1234/v1` all serve `/embeddings` beside `/chat/completions`), else OpenAI's.
 * The chat model's key goes only to the chat model's own address: an embedding server elsewhere gets
 * `EMBEDDING_API_KEY` or none.
 */
export function embeddingsFromEnv(
  env: EmbeddingSettings | Readonly<Record<string, string | number | undefined>>,
): EmbeddingProvider {
  const settings = parsed(env as Record<string, string | number | undefined>);
  const model = settings.EMBEDDING_MODEL?.trim();
  if (!model) return createHashEmbeddings();
  const chatUrl =
    settings.MODEL_PROVIDER === 'openai' ? (settings.OPENAI_BASE_URL ?? OPENAI_URL) : undefined;
  const baseUrl = settings.EMBEDDING_URL ?? chatUrl ?? OPENAI_URL;
  let sameHost = false;
  try {
    if (!['http:', 'https:'].includes(new URL(baseUrl).protocol)) throw new Error('not http');
    sameHost = chatUrl !== undefined && new URL(chatUrl).origin === new URL(baseUrl).origin;
  } catch {
    throw new ConfigError('EMBEDDING_URL must be an http(s) URL');
  }
  const apiKey = settings.EMBEDDING_API_KEY ?? (sameHost ? settings.OPENAI_API_KEY : undefined);
  return createOpenAICompatibleEmbeddings({
    baseUrl,
    model,
    ...(apiKey ? { apiKey } : {}),
    ...(settings.EMBEDDING_DIMENSIONS ? { dimensions: settings.EMBEDDING_DIMENSIONS } : {}),
    ...(settings.EMBEDDING_TIMEOUT_MS ? { timeoutMs: settings.EMBEDDING_TIMEOUT_MS } : {}),
    ...(settings.EMBEDDING_BATCH_SIZE ? { batchSize: settings.EMBEDDING_BATCH_SIZE } : {}),
  });
}
