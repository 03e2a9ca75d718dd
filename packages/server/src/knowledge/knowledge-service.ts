import { createHash } from 'node:crypto';
import { ParleyError, uuidFromBytes } from '@parley/core';
import pLimit from 'p-limit';
import type { Logger } from 'pino';
import type { MemoryRecord, MemoryStore } from '../memory/memory-store';
import type { Recaller, RecallSource } from '../memory/recall';
import type { EmbeddingProvider } from '../models/embeddings';
import { splitIntoFragments, fragmentTokens } from './fragments';
import type { KnowledgeSettings } from './knowledge-settings';

/** The memory tables knowledge uses, as elizaOS names them. */
export const DOCUMENTS_TABLE = 'documents';
export const FRAGMENTS_TABLE = 'fragments';

/** A document ready to store: its plain text and where it came from. */
export interface NewDocument {
  title: string;
  text: string;
  contentType: string;
  /** `upload` (the HTTP API), `character` (the character's `knowledge`) or a plugin's name. */
  source: string;
  /** Bytes of the original file, when there was one. */
  size?: number;
}

/** A stored document, as the API lists it. */
export interface KnowledgeDocument {
  id: string;
  agentId: string;
  title: string;
  contentType: string;
  source: string;
  size: number;
  fragmentCount: number;
  /** sha256 of the text, hex: the same text is stored and embedded once per agent. */
  hash: string;
  createdAt: number;
}

/** A document that is ready to store: split, not yet embedded. */
export interface PreparedDocument extends NewDocument {
  id: string;
  hash: string;
  fragments: string[];
}

const sha256 = (text: string) => createHash('sha256').update(text).digest();

/** The id of an agent's document of this text: the same text always maps to the same document. */
export function documentIdOf(agentId: string, hash: string): string {
  return uuidFromBytes(sha256(`parley-knowledge:${agentId}:${hash}`), 5);
}

/** The id of a document's fragment at `position` (so a document's fragments are found without a metadata index). */
export function fragmentIdOf(documentId: string, position: number): string {
  return uuidFromBytes(sha256(`parley-fragment:${documentId}:${position}`), 5);
}

/** Texts embedded per call to the embedder. */
const EMBED_BATCH = 64;

/**
 * Knowledge: documents an agent answers from. A document's text is split into overlapping fragments, each
 * embedded once and stored as a `fragments` memory (the document itself as a `documents` memory, its text hash in
 * the metadata; its id is derived from agent and hash, so the same text is never stored or embedded twice, and a
 * restart finds the character's documents already there). A recaller searches the fragments for each message
 * (hybrid: vector and full text) and gives the best, with their document's title, within a token budget.
 */
export class KnowledgeService {
  readonly #store: MemoryStore;
  readonly #embeddings: EmbeddingProvider;
  readonly #settings: KnowledgeSettings;
  readonly #logger: Pick<Logger, 'info' | 'warn'>;
  /** Documents stored at once per process (embedding is the expensive part). */
  readonly #ingest = pLimit(2);
  /** Agents known to have fragments, for a short while: an agent without knowledge costs its replies one count. */
  readonly #hasKnowledge = new Map<string, { value: boolean; until: number }>();

  constructor(options: {
    store: MemoryStore;
    embeddings: EmbeddingProvider;
    settings: KnowledgeSettings;
    logger: Pick<Logger, 'info' | 'warn'>;
  }) {
    this.#store = options.store;
    this.#embeddings = options.embeddings;
    this.#settings = options.settings;
    this.#logger = options.logger;
  }

  get settings(): KnowledgeSettings {
    return this.#settings;
  }

  /**
   * Splits a document and checks it against the limits, storing nothing: 400 for an empty text, 413 for one
   * over `maxDocumentBytes` or `maxFragmentsPerDocument`.
   */
  prepare(agentId: string, document: NewDocument): PreparedDocument {
    const { settings } = this;
    const bytes = Buffer.byteLength(document.text);
    if (bytes > settings.maxDocumentBytes) {
      throw new ParleyError(
        'PAYLOAD_TOO_LARGE',
        `"${document.title}" exceeds the limit of ${settings.maxDocumentBytes} bytes per document (KNOWLEDGE_MAX_DOCUMENT_BYTES)`,
        { details: { limit: settings.maxDocumentBytes, setting: 'KNOWLEDGE_MAX_DOCUMENT_BYTES' } },
      );
    }
    if (document.text.trim() === '') {
      throw new ParleyError('BAD_REQUEST', `"${document.title}" holds no text`);
    }
    const fragments = splitIntoFragments(document.text, {
      tokens: settings.fragmentTokens,
      overlap: settings.fragmentOverlapTokens,
      maxFragments: settings.maxFragmentsPerDocument,
    });
    if (fragments.length > settings.maxFragmentsPerDocument) {
      throw new ParleyError(
        'PAYLOAD_TOO_LARGE',
        `"${document.title}" needs more than ${settings.maxFragmentsPerDocument} fragments (KNOWLEDGE_MAX_FRAGMENTS_PER_DOCUMENT)`,
        {
          details: {
            limit: settings.maxFragmentsPerDocument,
            setting: 'KNOWLEDGE_MAX_FRAGMENTS_PER_DOCUMENT',
          },
        },
      );
    }
    const hash = sha256(document.text).toString('hex');
    return { ...document, id: documentIdOf(agentId, hash), hash, fragments };
  }

  /**
   * Stores prepared documents of one agent, all or none: the agent's document limit is checked for them
   * together (413), a document already stored (same text) is answered as it is, not embedded again, and when
   * storing one fails, those stored by this call are deleted again before the error is thrown.
   */
  async addAll(
    agentId: string,
    documents: readonly PreparedDocument[],
    signal?: AbortSignal,
  ): Promise<{ document: KnowledgeDocument; created: boolean }[]> {
    const existing = await this.#store.getByIds(
      documents.map((document) => document.id),
      { agentId, tableName: DOCUMENTS_TABLE },
    );
    const known = new Map(existing.map((record) => [record.id, record]));
    const fresh = [
      ...new Map(
        documents.filter((document) => !known.has(document.id)).map((d) => [d.id, d]),
      ).values(),
    ];
    if (fresh.length > 0) {
      const count = await this.#store.count({ agentId, tableName: DOCUMENTS_TABLE });
      if (count + fresh.length > this.settings.maxDocumentsPerAgent) {
        throw new ParleyError(
          'PAYLOAD_TOO_LARGE',
          `The agent holds ${count} documents; ${fresh.length} more exceed the limit of ${this.settings.maxDocumentsPerAgent} (KNOWLEDGE_MAX_DOCUMENTS)`,
          {
            details: {
              limit: this.settings.maxDocumentsPerAgent,
              setting: 'KNOWLEDGE_MAX_DOCUMENTS',
            },
          },
        );
      }
    }
    const stored: PreparedDocument[] = [];
    try {
      for (const document of fresh) {
        await this.#ingest(() => this.#store1(agentId, document, signal));
        stored.push(document);
      }
    } catch (error) {
      for (const document of stored) await this.delete(agentId, document.id).catch(() => false);
      throw error;
    }
    this.#hasKnowledge.delete(agentId);
    const created = new Set(fresh.map((document) => document.id));
    const records = await this.#store.getByIds(
      documents.map((document) => document.id),
      { agentId, tableName: DOCUMENTS_TABLE },
    );
    const byId = new Map(records.map((record) => [record.id, record]));
    return documents.flatMap((document) => {
      const record = byId.get(document.id);
      return record ? [{ document: toDocument(record), created: created.has(document.id) }] : [];
    });
  }

  /** Embeds a document's fragments and stores them, then the document (so a listed document is complete). */
  async #store1(agentId: string, document: PreparedDocument, signal?: AbortSignal): Promise<void> {
    await this.#embeddings.ready?.({ signal });
    try {
      for (let from = 0; from < document.fragments.length; from += EMBED_BATCH) {
        const texts = document.fragments.slice(from, from + EMBED_BATCH);
        const vectors = await this.#embeddings.embed(texts, { signal });
        await this.#store.createMany(
          texts.map((text, index) => ({
            id: fragmentIdOf(document.id, from + index),
            agentId,
            entityId: agentId,
            roomId: agentId,
            content: { text },
            embedding: vectors[index],
            metadata: {
              type: 'fragment',
              documentId: document.id,
              position: from + index,
              title: document.title,
              source: document.source,
              hash: createHash('sha256').update(text).digest('hex'),
            },
          })),
          FRAGMENTS_TABLE,
        );
      }
      await this.#store.create(
        {
          id: document.id,
          agentId,
          entityId: agentId,
          roomId: agentId,
          content: { text: document.text, source: document.source },
          metadata: {
            type: 'document',
            title: document.title,
            contentType: document.contentType,
            source: document.source,
            size: document.size ?? Buffer.byteLength(document.text),
            fragmentCount: document.fragments.length,
            hash: document.hash,
          },
        },
        DOCUMENTS_TABLE,
      );
    } catch (error) {
      await this.#deleteFragments(agentId, document.id, document.fragments.length);
      throw error;
    }
    this.#logger.info(
      {
        agentId,
        documentId: document.id,
        fragments: document.fragments.length,
        source: document.source,
      },
      `knowledge: stored "${document.title}" (${document.fragments.length} fragments)`,
    );
  }

  /** An agent's documents, newest first (without their text). */
  async list(
    agentId: string,
    options: { count?: number; offset?: number } = {},
  ): Promise<KnowledgeDocument[]> {
    const records = await this.#store.get({
      agentId,
      tableName: DOCUMENTS_TABLE,
      count: options.count ?? 100,
      offset: options.offset ?? 0,
      withoutEmbeddings: true,
    });
    return records.map(toDocument);
  }

  /** One document with its text; 404 when the agent has none of that id. */
  async get(agentId: string, documentId: string): Promise<KnowledgeDocument & { text: string }> {
    const record = await this.#store.getById(documentId, agentId);
    if (!record || record.tableName !== DOCUMENTS_TABLE) {
      throw new ParleyError('NOT_FOUND', `The agent has no document ${documentId}`);
    }
    return {
      ...toDocument(record),
      text: typeof record.content.text === 'string' ? record.content.text : '',
    };
  }

  /** Deletes a document and its fragments; false when the agent has none of that id. */
  async delete(agentId: string, documentId: string): Promise<boolean> {
    const record = await this.#store.getById(documentId, agentId);
    if (!record || record.tableName !== DOCUMENTS_TABLE) return false;
    const count = Number(
      (record.metadata as { fragmentCount?: unknown } | undefined)?.fragmentCount ?? 0,
    );
    await this.#deleteFragments(agentId, documentId, count);
    await this.#store.delete(documentId, agentId);
    this.#hasKnowledge.delete(agentId);
    return true;
  }

  async #deleteFragments(agentId: string, documentId: string, count: number): Promise<void> {
    for (
      let position = 0;
      position < Math.min(count, this.settings.maxFragmentsPerDocument);
      position++
    ) {
      await this.#store.delete(fragmentIdOf(documentId, position), agentId);
    }
  }

  async #agentHasKnowledge(agentId: string): Promise<boolean> {
    const now = Date.now();
    const cached = this.#hasKnowledge.get(agentId);
    if (cached && cached.until > now) return cached.value;
    const value = (await this.#store.count({ agentId, tableName: FRAGMENTS_TABLE })) > 0;
    if (this.#hasKnowledge.size > 10_000) this.#hasKnowledge.clear();
    this.#hasKnowledge.set(agentId, { value, until: now + 5_000 });
    return value;
  }

  /**
   * The fragments of an agent's documents that best match a text (vector and full-text search fused), at most
   * `count`, a vector-only match below `minSimilarity` left out.
   */
  async search(
    agentId: string,
    text: string,
    options: { count?: number; signal?: AbortSignal } = {},
  ): Promise<MemoryRecord[]> {
    const query = text.trim().slice(0, 2_000);
    if (query === '') return [];
    const [embedding] = await this.#embeddings.embed([query], { signal: options.signal });
    return this.#store.search({
      agentId,
      tableName: FRAGMENTS_TABLE,
      embedding,
      query,
      threshold: this.settings.minSimilarity,
      count: options.count ?? this.settings.recallCount,
    });
  }

  /**
   * The recaller the reply loop runs: the user's message is the query; the best fragments, each headed by its
   * document's title, within `recallTokens`; the documents they came from as sources. An agent with no
   * documents costs one cached count.
   */
  readonly recaller: Recaller = async ({ agentId, message, signal }) => {
    if (!(await this.#agentHasKnowledge(agentId))) return undefined;
    const hits = await this.search(agentId, message.content, { signal });
    const parts: string[] = [];
    const sources = new Map<string, RecallSource>();
    let used = 0;
    for (const hit of hits) {
      const metadata = (hit.metadata ?? {}) as { title?: unknown; documentId?: unknown };
      const title = typeof metadata.title === 'string' ? metadata.title : 'document';
      const part = `[${title}]\n${typeof hit.content.text === 'string' ? hit.content.text : ''}`;
      const cost = fragmentTokens(part);
      if (used + cost > this.settings.recallTokens) continue;
      used += cost;
      parts.push(part);
      const documentId = typeof metadata.documentId === 'string' ? metadata.documentId : hit.id;
      if (!sources.has(documentId)) {
        sources.set(documentId, {
          id: documentId,
          title,
          ...(hit.similarity === undefined ? {} : { score: hit.similarity }),
        });
      }
    }
    if (parts.length === 0) return undefined;
    return { title: 'Knowledge', text: parts.join('\n\n'), sources: [...sources.values()] };
  };
}

function toDocument(record: MemoryRecord): KnowledgeDocument {
  const metadata = record.metadata ?? {};
  const text = (key: string, fallback: string) => {
    const value = metadata[key];
    return typeof value === 'string' ? value : fallback;
  };
  return {
    id: record.id,
    agentId: record.agentId,
    title: text('title', 'document'),
    contentType: text('contentType', 'text/plain'),
    source: text('source', 'upload'),
    size: Number(metadata.size ?? 0),
    fragmentCount: Number(metadata.fragmentCount ?? 0),
    hash: text('hash', ''),
    createdAt: record.createdAt,
  };
}
