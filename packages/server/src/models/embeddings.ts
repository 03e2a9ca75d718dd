/** Embeddings as a model capability (the interface in `embeddings/embedding-provider.ts`; docs/memory.md). */
export type { EmbeddingProvider } from './embeddings/embedding-provider';
export { createHashEmbeddings, HASH_EMBEDDING_DIMENSIONS } from './embeddings/hash-embeddings';
export {
  createOpenAICompatibleEmbeddings,
  type OpenAICompatibleEmbeddingOptions,
} from './embeddings/openai-compatible-embeddings';
export { embeddingsFromEnv, type EmbeddingSettings } from './embeddings/embeddings-from-env';
