import type { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { APICallError } from '@ai-sdk/provider';
import { ParleyError } from '@parley/core';
import type { EmbeddingProvider } from './embedding-provider';
import { toModelError } from '../to-model-error';

type EmbeddingModel = ReturnType<ReturnType<typeof createOpenAICompatible>['embeddingModel']>;

/** Where and how an OpenAI-compatible embeddings endpoint is called. */
export interface OpenAICompatibleEmbeddingOptions {
  /** The API's base address, e.g. `https://api.openai.com/v1` or Ollama's `http://127.0.0.1:11434/v1`. */
  baseUrl: string;
  model: string;
  /** Sent as `Authorization: Bearer …`; omitted for local servers that need none. */
  apiKey?: string;
  /** Known length of the vectors (sent as `dimensions` for models that shorten theirs); else learnt. */
  dimensions?: number;
  /** Deadline of one `embed` call, all batches and retries included. Default 60,000 ms. */
  timeoutMs?: number;
  /** Texts per request. Default 64. */
  batchSize?: number;
  /** Characters of one text sent; the rest is cut. Default 8,000 (about 2,000 tokens). */
  maxInputChars?: number;
  /** Retries of a request that failed with 408, 409, 429 or 5xx, or could not connect. Default 2. */
  maxRetries?: number;
  /** Most texts one `embed` call takes. Default 10,000. */
  maxTexts?: number;
  fetch?: typeof globalThis.fetch;
}

/**
 * `POST {baseUrl}/embeddings` as OpenAI, Ollama, vLLM and LM Studio answer it, through the AI SDK's
 * OpenAI-compatible provider (its request and parser), retried with backoff on 408, 409, 429, 5xx and failed
 * connections (`Retry-After` honoured up to 10 s). Texts go in batches, one batch at a time; each
 * text is cut to `maxInputChars`; the whole call has one deadline. Every vector of the answer is checked: as many
 * as texts, all finite numbers, all of one length (the first answer fixes `dimensions`).
 */
export function createOpenAICompatibleEmbeddings(
  options: OpenAICompatibleEmbeddingOptions,
): EmbeddingProvider {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const batchSize = Math.max(1, options.batchSize ?? 64);
  const maxInputChars = options.maxInputChars ?? 8_000;
  const maxTexts = options.maxTexts ?? 10_000;
  // The AI SDK's provider (about 5 MB of modules) is loaded at the first embedding, not when the server starts.
  let model: Promise<EmbeddingModel> | undefined;
  const loadModel = (): Promise<EmbeddingModel> =>
    (model ??= import('@ai-sdk/openai-compatible').then(({ createOpenAICompatible }) =>
      createOpenAICompatible({
        name: 'embeddings',
        baseURL: options.baseUrl.replace(/\/+$/, ''),
        ...(options.apiKey ? { apiKey: options.apiKey } : {}),
        ...(options.fetch ? { fetch: options.fetch } : {}),
      }).embeddingModel(options.model),
    ));
  let dimensions = options.dimensions ?? 0;

  const check = (vectors: readonly unknown[], expected: number): number[][] => {
    if (vectors.length !== expected) {
      throw new ParleyError(
        'MODEL_ERROR',
        'The embedding service answered the wrong number of vectors',
      );
    }
    return vectors.map((vector) => {
      if (
        !Array.isArray(vector) ||
        vector.length === 0 ||
        !vector.every((value) => typeof value === 'number' && Number.isFinite(value))
      ) {
        throw new ParleyError('MODEL_ERROR', 'The embedding service sent a malformed vector');
      }
      if (dimensions === 0) dimensions = vector.length;
      if (vector.length !== dimensions) {
        throw new ParleyError(
          'MODEL_ERROR',
          `The embedding service answered a vector of ${vector.length} dimensions, not ${dimensions}: was EMBEDDING_MODEL's model changed?`,
        );
      }
      return vector as number[];
    });
  };

  const embed = async (
    texts: readonly string[],
    callOptions?: { signal?: AbortSignal },
  ): Promise<number[][]> => {
    if (texts.length > maxTexts) {
      throw new ParleyError(
        'PAYLOAD_TOO_LARGE',
        `At most ${maxTexts} texts are embedded at once (${texts.length} given)`,
      );
    }
    if (texts.length === 0) return [];
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = callOptions?.signal ? AbortSignal.any([callOptions.signal, deadline]) : deadline;
    const out: number[][] = [];
    try {
      for (let start = 0; start < texts.length; start += batchSize) {
        // An empty input is refused by some servers: a single space embeds as "nothing".
        const values = texts
          .slice(start, start + batchSize)
          .map((text) => String(text).slice(0, maxInputChars) || ' ');
        const embedder = await loadModel();
        const { embeddings } = await withRetries(
          () =>
            embedder.doEmbed({
              values,
              abortSignal: signal,
              ...(options.dimensions
                ? { providerOptions: { embeddings: { dimensions: options.dimensions } } }
                : {}),
            }),
          options.maxRetries ?? 2,
          signal,
        );
        out.push(...check(embeddings, values.length));
      }
    } catch (error) {
      if (deadline.aborted && !callOptions?.signal?.aborted) {
        throw new ParleyError(
          'TIMEOUT',
          `The embedding service did not answer within ${timeoutMs} ms`,
          { cause: error },
        );
      }
      throw toModelError(error);
    }
    return out;
  };

  return {
    name: 'openai',
    model: options.model,
    get dimensions() {
      return dimensions;
    },
    embed,
    async ready(callOptions) {
      if (dimensions === 0) await embed(['dimensions'], callOptions);
    },
  };
}

/** Waits `ms`, or rejects when the signal aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason as Error);
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** The wait a `Retry-After` header asks for, in ms (at most 10 s), else an exponential backoff from 250 ms. */
function delayOf(error: unknown, attempt: number): number {
  const header = APICallError.isInstance(error)
    ? error.responseHeaders?.['retry-after']
    : undefined;
  const seconds = header === undefined ? NaN : Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, 10_000);
  return 250 * 2 ** attempt;
}

/** Runs `call`, again after a retryable failure (the AI SDK's `isRetryable`: 408, 409, 429, 5xx, no connection). */
async function withRetries<T>(
  call: () => PromiseLike<T>,
  retries: number,
  signal: AbortSignal,
): Promise<T> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await call();
    } catch (error) {
      const retryable = APICallError.isInstance(error) && error.isRetryable;
      if (!retryable || attempt >= retries || signal.aborted) throw error;
      await pause(delayOf(error, attempt), signal);
    }
  }
}
