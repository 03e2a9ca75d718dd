import type { Logger } from 'pino';
import type { EmbeddingProvider } from '../../models/embeddings';
import type { MemoryStore } from '../memory-store';
import type { FactStore, PersonFact } from './fact-store';

/** The memories table facts live in (elizaOS's `facts`). */
export const FACTS_TABLE = 'facts';

/**
 * {@link FactStore} on the one memory store: each fact a `facts` memory with the person's entity id and the
 * channel it was learned in as its room, embedded when an embedder is given (so `searchMemories` finds it as
 * elizaOS's facts are found); a fact whose embedding fails is stored without one rather than lost.
 */
export function memoryFactStore(
  store: MemoryStore,
  options: { embeddings?: EmbeddingProvider; logger: Logger },
): FactStore {
  return {
    async list(agentId, entityId, limit): Promise<PersonFact[]> {
      const records = await store.get({
        agentId,
        tableName: FACTS_TABLE,
        entityId,
        count: limit,
        withoutEmbeddings: true,
      });
      return records.map((record) => ({
        id: record.id,
        text: typeof record.content.text === 'string' ? record.content.text : '',
        roomId: record.roomId,
        createdAt: record.createdAt,
      }));
    },
    async add(agentId, entityId, roomId, texts) {
      let embeddings: number[][] | undefined;
      try {
        embeddings = options.embeddings ? await options.embeddings.embed(texts) : undefined;
      } catch (error) {
        options.logger.warn({ err: error }, 'facts stored without embeddings: the embedder failed');
      }
      await store.createMany(
        texts.map((text, index) => ({
          agentId,
          entityId,
          roomId,
          content: { text, source: 'fact-extraction' },
          metadata: { type: FACTS_TABLE },
          ...(embeddings?.[index] ? { embedding: embeddings[index] } : {}),
        })),
        FACTS_TABLE,
      );
    },
    async remove(agentId, ids) {
      for (const id of ids) await store.delete(id, agentId);
    },
  };
}
