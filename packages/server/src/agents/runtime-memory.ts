import { ParleyError } from '@parley/core';
import type { Memory, PluginLogger } from '@parley/plugin-sdk';
import type { MemoryService } from '../memory/memory-service';
import type { CachedEmbeddingQuery, MemoryRecord } from '../memory/memory-store';

/** elizaOS's `getMemories` parameters. */
export interface GetMemoriesParams {
  tableName: string;
  roomId?: string;
  entityId?: string;
  worldId?: string;
  agentId?: string;
  count?: number;
  offset?: number;
  unique?: boolean;
  start?: number;
  end?: number;
}

/** elizaOS's `searchMemories` parameters. */
export interface SearchMemoriesParams {
  tableName: string;
  embedding: number[];
  match_threshold?: number;
  count?: number;
  unique?: boolean;
  query?: string;
  roomId?: string;
  worldId?: string;
  entityId?: string;
}

/** A memory as elizaOS answers it: its table name kept, `similarity` when searched. */
export type ElizaMemory = Memory & { embedding?: number[]; unique?: boolean; similarity?: number };

const toMemory = (record: MemoryRecord): ElizaMemory => ({ ...record });

/** The most memories the store answers in one call (`SqlMemoryStore`'s bound). */
const MAX_MEMORIES_A_CALL = 1_000;

/**
 * elizaOS's runtime memory methods for one agent, on the server's memory store: every call is scoped to the
 * agent (a plugin cannot read or write another agent's memories), bad input is a BAD_REQUEST ParleyError.
 */
export class RuntimeMemory {
  constructor(
    private readonly agentId: string,
    private readonly service: MemoryService | undefined,
    private readonly logger: PluginLogger,
  ) {}

  private get memory(): MemoryService {
    if (!this.service) {
      throw new ParleyError(
        'UNAVAILABLE',
        'This runtime has no memory store (a runtime built without a server)',
      );
    }
    return this.service;
  }

  /** The vector of a text (elizaOS `useModel(TEXT_EMBEDDING)`); `null` gives a probe vector of the right length. */
  async embed(params: unknown): Promise<number[]> {
    const { embeddings } = this.memory;
    if (params === null || params === undefined) {
      await embeddings.ready?.();
      const probe = Array.from({ length: embeddings.dimensions }, () => 0);
      probe[0] = 0.1;
      return probe;
    }
    const text =
      typeof params === 'string'
        ? params
        : typeof (params as { text?: unknown }).text === 'string'
          ? (params as { text: string }).text
          : undefined;
    if (text === undefined) {
      throw new ParleyError('BAD_REQUEST', 'useModel(TEXT_EMBEDDING) takes a text or { text }');
    }
    const [vector] = await embeddings.embed([text]);
    return vector!;
  }

  async createMemory(
    memory: Memory & { embedding?: number[] },
    tableName: string,
    unique?: boolean,
  ) {
    if (typeof memory !== 'object' || memory === null) {
      throw new ParleyError('BAD_REQUEST', 'createMemory takes a memory object');
    }
    return this.memory.store.create(
      {
        ...(memory.id ? { id: memory.id } : {}),
        agentId: this.agentId,
        entityId: memory.entityId,
        roomId: memory.roomId,
        ...(memory.worldId ? { worldId: memory.worldId } : {}),
        content: memory.content,
        ...(memory.metadata ? { metadata: memory.metadata } : {}),
        ...(memory.embedding ? { embedding: memory.embedding } : {}),
        ...(typeof memory.createdAt === 'number' ? { createdAt: memory.createdAt } : {}),
      },
      tableName,
      unique,
    );
  }

  async getMemories(params: GetMemoriesParams): Promise<ElizaMemory[]> {
    // elizaOS callers ask for "all" with a large count (plugin-knowledge: 10,000) or with none (elizaOS's SQL
    // adapter then sets no limit); the store answers at most 1,000 a call, so both get that many rather than a
    // refusal or the store's page of 100.
    const count =
      typeof params.count !== 'number' || params.count > MAX_MEMORIES_A_CALL
        ? MAX_MEMORIES_A_CALL
        : params.count;
    const records = await this.memory.store.get({ ...params, count, agentId: this.agentId });
    return records.map(toMemory);
  }

  async getMemoryById(id: string): Promise<ElizaMemory | null> {
    const record = await this.memory.store.getById(id, this.agentId);
    return record ? toMemory(record) : null;
  }

  async getMemoriesByIds(ids: string[], tableName?: string): Promise<ElizaMemory[]> {
    const records = await this.memory.store.getByIds(Array.isArray(ids) ? ids : [], {
      agentId: this.agentId,
      ...(tableName ? { tableName } : {}),
    });
    return records.map(toMemory);
  }

  async searchMemories(params: SearchMemoriesParams): Promise<ElizaMemory[]> {
    const records = await this.memory.store.search({
      agentId: this.agentId,
      tableName: params.tableName,
      embedding: params.embedding,
      ...(params.query === undefined ? {} : { query: params.query }),
      ...(params.match_threshold === undefined ? {} : { threshold: params.match_threshold }),
      ...(params.count === undefined ? {} : { count: Math.min(params.count, 200) }),
      ...(params.unique === undefined ? {} : { unique: params.unique }),
      ...(params.roomId === undefined ? {} : { roomId: params.roomId }),
      ...(params.worldId === undefined ? {} : { worldId: params.worldId }),
      ...(params.entityId === undefined ? {} : { entityId: params.entityId }),
    });
    return records.map(toMemory);
  }

  async updateMemory(
    memory: Partial<Memory> & { id: string; embedding?: number[] },
  ): Promise<boolean> {
    return this.memory.store.update(
      {
        id: memory.id,
        ...(memory.content ? { content: memory.content } : {}),
        ...(memory.metadata ? { metadata: memory.metadata } : {}),
        ...(memory.embedding ? { embedding: memory.embedding } : {}),
      },
      this.agentId,
    );
  }

  async deleteMemory(id: string): Promise<void> {
    await this.memory.store.delete(id, this.agentId);
  }

  async deleteAllMemories(roomId: string, tableName: string): Promise<void> {
    await this.memory.store.deleteAll({ agentId: this.agentId, roomId, tableName });
  }

  async countMemories(roomId: string, unique?: boolean, tableName = 'messages'): Promise<number> {
    return this.memory.store.count({
      agentId: this.agentId,
      roomId,
      tableName,
      ...(unique === undefined ? {} : { unique }),
    });
  }

  /** The memory with its text's embedding (computed when it has none); not stored, as in elizaOS. */
  async addEmbeddingToMemory(memory: ElizaMemory): Promise<ElizaMemory> {
    if (Array.isArray(memory.embedding) && memory.embedding.length > 0) return memory;
    const text = typeof memory.content?.text === 'string' ? memory.content.text : '';
    if (text === '') return memory;
    return { ...memory, embedding: await this.embed(text) };
  }

  /** Embeds a stored memory's text in the background and stores the vector (failures are logged). */
  queueEmbeddingGeneration(memory: ElizaMemory): Promise<void> {
    const text = typeof memory?.content?.text === 'string' ? memory.content.text : '';
    if (!memory?.id || text === '' || memory.embedding) return Promise.resolve();
    const id = memory.id;
    void this.embed(text)
      .then((vector) => this.memory.store.addEmbedding(id, vector, this.agentId))
      .catch((error: unknown) =>
        this.logger.warn({ err: error, memoryId: id }, 'a queued embedding failed'),
      );
    return Promise.resolve();
  }

  async getCachedEmbeddings(
    query: CachedEmbeddingQuery,
  ): Promise<{ embedding: number[]; levenshtein_score: number }[]> {
    return this.memory.store.getCachedEmbeddings(this.agentId, query);
  }
}
