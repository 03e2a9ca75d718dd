/**
 * Embeddings as a model capability: texts in, one vector each out. Implementations: the offline feature-hashing
 * embedder ({@link createHashEmbeddings}, the default: no network, no download) and an OpenAI-compatible
 * `POST /v1/embeddings` client ({@link createOpenAICompatibleEmbeddings}: OpenAI, Ollama, vLLM, LM Studio).
 * See docs/memory.md, "Embeddings".
 */
export interface EmbeddingProvider {
  /** `offline-hash` or `openai`. */
  readonly name: string;
  /** The embedding model's name, stored with each agent's memories (a change is detected at start). */
  readonly model: string;
  /**
   * Length of every vector it answers. An OpenAI-compatible provider learns it from its first answer (0 until
   * then) unless `EMBEDDING_DIMENSIONS` gives it; `ready()` makes sure it is known.
   */
  readonly dimensions: number;
  /**
   * One vector per text, in order. Throws ParleyError('MODEL_ERROR' | 'TIMEOUT') on failure; stops promptly when
   * the signal aborts.
   */
  embed(texts: readonly string[], options?: { signal?: AbortSignal }): Promise<number[][]>;
  /** Learns `dimensions` when it is not known yet (one short call); resolves at once when it is. */
  ready?(options?: { signal?: AbortSignal }): Promise<void>;
}
