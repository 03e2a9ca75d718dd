import { sql, type Kysely, type Transaction } from 'kysely';
import type { EmbeddingProvider } from '../models/embeddings';
import type { DatabaseSchema } from '../storage/schema';

/** An embedding model and the length of its vectors, as `memory_embedding_models` records them. */
export interface EmbeddingModelRecord {
  model: string;
  dimensions: number;
}

/** What became of one agent: how many vectors were embedded again, and the model before and after. */
export interface ReembedResult {
  agentId: string;
  /** Memories with a text whose vector was embedded again. */
  memories: number;
  /** Memories that had a vector but no text to embed again: their vector was removed (never left mixed). */
  cleared: number;
  before: EmbeddingModelRecord;
  after: EmbeddingModelRecord;
}

/** Progress within one agent, after each page of memories. */
export interface ReembedProgress {
  agentId: string;
  done: number;
  total: number;
}

/** What {@link reembedMemories} needs. */
export interface ReembedOptions {
  db: Kysely<DatabaseSchema>;
  /** The embedder the server would use now; its `model` and `dimensions` are recorded once an agent is done. */
  embeddings: EmbeddingProvider;
  /** Only this agent (it is left alone when already on the embedder's model). */
  agentId?: string;
  /** Memories read, embedded and written at once. Default 256. */
  pageSize?: number;
  onProgress?: (progress: ReembedProgress) => void;
  /** Called once an agent's switch has committed (before the next agent starts). */
  onAgent?: (result: ReembedResult) => void | Promise<void>;
  /**
   * Called inside an agent's transaction just before it commits: a throw keeps the agent wholly on its old
   * vectors (the command refuses there when another session could write old vectors after the switch).
   */
  beforeCommit?: (trx: Transaction<DatabaseSchema>) => Promise<void>;
  signal?: AbortSignal;
}

const DEFAULT_PAGE_SIZE = 256;

/** An agent could not be re-embedded: it stays wholly on `before`, and running again starts it over. */
export class ReembedError extends Error {
  override readonly name = 'ReembedError';
  constructor(
    readonly agentId: string,
    readonly before: EmbeddingModelRecord,
    cause: unknown,
  ) {
    super(
      `agent ${agentId}: ${cause instanceof Error ? cause.message : String(cause)}; its memories stay wholly on ${before.model} (${before.dimensions} dimensions)`,
      { cause },
    );
  }
}

/**
 * The agents whose recorded embedding model or length differs from `embeddings`' (or only `agentId`), with
 * what is recorded.
 */
export async function agentsToReembed(
  db: Kysely<DatabaseSchema>,
  current: EmbeddingModelRecord,
  agentId?: string,
): Promise<(EmbeddingModelRecord & { agentId: string })[]> {
  let query = db
    .selectFrom('memory_embedding_models')
    .select(['agent_id', 'model', 'dimensions'])
    .where((eb) =>
      eb.or([eb('model', '!=', current.model), eb('dimensions', '!=', current.dimensions)]),
    );
  if (agentId !== undefined) query = query.where('agent_id', '=', agentId);
  const rows = await query.orderBy('agent_id').execute();
  return rows.map((row) => ({
    agentId: row.agent_id,
    model: row.model,
    dimensions: row.dimensions,
  }));
}

/**
 * Embeds again, with `embeddings`, every stored vector of each agent whose recorded model or length differs from
 * the embedder's, then records the new model. Each agent is one transaction: its memories are read by id, a
 * page at a time, their texts embedded and their vectors replaced; a memory with a vector but no text loses
 * the vector; the record changes last. A failure anywhere (the embedder down midway, the database) rolls the
 * agent back wholly onto its old vectors and is thrown as a {@link ReembedError}; agents finished before it stay
 * finished. Running it again starts the failed agent over.
 *
 * The embedded database's server must be stopped (its folder lock says so); see docs/memory.md for PostgreSQL.
 */
export async function reembedMemories(options: ReembedOptions): Promise<ReembedResult[]> {
  const { db, embeddings } = options;
  await embeddings.ready?.({ ...(options.signal ? { signal: options.signal } : {}) });
  const current = { model: embeddings.model, dimensions: embeddings.dimensions };
  const results: ReembedResult[] = [];
  for (const agent of await agentsToReembed(db, current, options.agentId)) {
    let result: ReembedResult | undefined;
    try {
      result = await db
        .transaction()
        .execute((trx) => reembedAgent(trx, agent.agentId, current, options));
    } catch (error) {
      throw new ReembedError(
        agent.agentId,
        { model: agent.model, dimensions: agent.dimensions },
        error,
      );
    }
    if (!result) continue;
    results.push(result);
    await options.onAgent?.(result);
  }
  return results;
}

/** One agent, inside its transaction; undefined when another run switched it meanwhile. */
async function reembedAgent(
  trx: Transaction<DatabaseSchema>,
  agentId: string,
  current: EmbeddingModelRecord,
  options: ReembedOptions,
): Promise<ReembedResult | undefined> {
  // The record row is locked for the transaction: two runs at once re-embed an agent one after the other.
  const before = await trx
    .selectFrom('memory_embedding_models')
    .select(['model', 'dimensions'])
    .where('agent_id', '=', agentId)
    .forUpdate()
    .executeTakeFirst();
  if (!before || (before.model === current.model && before.dimensions === current.dimensions)) {
    return undefined;
  }
  const hasText = sql<boolean>`coalesce(content->>'text', '') <> ''`;
  const { rows: counted } = await sql<{ count: string | number }>`
    SELECT count(*) AS count FROM memories
    WHERE agent_id = ${agentId} AND embedding IS NOT NULL AND ${hasText}`.execute(trx);
  const total = Number(counted[0]?.count ?? 0);
  const pageSize = Math.max(1, options.pageSize ?? DEFAULT_PAGE_SIZE);
  let done = 0;
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const { rows } = await sql<{ id: string; text: string }>`
      SELECT id, content->>'text' AS text FROM memories
      WHERE agent_id = ${agentId} AND embedding IS NOT NULL AND ${hasText} AND id > ${after}
      ORDER BY id LIMIT ${pageSize}`.execute(trx);
    if (rows.length === 0) break;
    const vectors = await options.embeddings.embed(
      rows.map((row) => row.text),
      options.signal ? { signal: options.signal } : undefined,
    );
    await writeVectors(trx, rows, vectors, current.dimensions);
    done += rows.length;
    after = rows[rows.length - 1]!.id;
    options.onProgress?.({ agentId, done, total });
  }
  // A vector with no text behind it cannot be embedded again, and kept it would be a vector of the old model.
  const cleared = await trx
    .updateTable('memories')
    .set({ embedding: null })
    .where('agent_id', '=', agentId)
    .where('embedding', 'is not', null)
    .where(sql<boolean>`NOT (${hasText})`)
    .executeTakeFirst();
  await trx
    .updateTable('memory_embedding_models')
    .set({ model: current.model, dimensions: current.dimensions, updated_at: new Date() })
    .where('agent_id', '=', agentId)
    .execute();
  await options.beforeCommit?.(trx);
  return {
    agentId,
    memories: done,
    cleared: Number(cleared.numUpdatedRows),
    before: { model: before.model, dimensions: before.dimensions },
    after: current,
  };
}

/** Replaces the vectors of `rows` in one statement, each checked to have the embedder's length. */
async function writeVectors(
  trx: Transaction<DatabaseSchema>,
  rows: readonly { id: string }[],
  vectors: readonly number[][],
  dimensions: number,
): Promise<void> {
  if (vectors.length !== rows.length || vectors.some((vector) => vector.length !== dimensions)) {
    throw new Error(
      `the embedder answered ${vectors.length} vectors for ${rows.length} texts, not all of ${dimensions} dimensions`,
    );
  }
  const values = rows.map(
    (row, index) =>
      sql`(${row.id}::uuid, ${`{${vectors[index]!.map((value) => Math.fround(value)).join(',')}}`}::real[])`,
  );
  await sql`
    UPDATE memories AS m SET embedding = v.embedding
    FROM (VALUES ${sql.join(values)}) AS v(id, embedding)
    WHERE m.id = v.id`.execute(trx);
}
