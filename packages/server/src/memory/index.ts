/**
 * Agents' memory: the store (memories with embeddings, full-text and vector search, on PGlite and PostgreSQL),
 * the embedder, and the recall hook of the reply loop. See docs/memory.md.
 *
 * @module
 */
export {
  createMemoryService,
  type MemoryService,
  type MemoryServiceOptions,
} from './memory-service';
export type {
  CachedEmbeddingQuery,
  MemoryFilter,
  MemoryPatch,
  MemoryQuery,
  MemoryRecord,
  MemorySearch,
  MemoryStore,
  NewMemory,
} from './memory-store';
export type { RecallInput, RecallSection, RecallSource, Recaller } from './recall';
export type { VectorSearch } from './sql-memory-store';
export {
  agentsToReembed,
  reembedMemories,
  ReembedError,
  type EmbeddingModelRecord,
  type ReembedOptions,
  type ReembedProgress,
  type ReembedResult,
} from './reembed';
export { runReembed, type RunReembedOptions, type RunReembedOutcome } from './run-reembed';
