import { type Kysely, sql } from 'kysely';
import type { DatabaseSchema } from './schema';
import { storageCall } from './to-storage-error';

/**
 * elizaOS's `jobs.list` and `jobs.health` read from the database, so every process of a cluster answers them
 * alike: a job is a question message of source `jobs` (its facts in `metadata.job`), its answer the agent's
 * first reply to it. Both read at most the newest `JOB_WINDOW` jobs (elizaOS keeps at most 10 000 in memory and
 * reports that as `maxJobs`), through the partial index `messages_jobs_idx` (migration 0028), so their cost does
 * not grow with the messages table.
 */
export const JOB_WINDOW = 10_000;

export type JobState = 'processing' | 'completed' | 'timeout';

export interface JobRow {
  id: string;
  content: string;
  metadata: Record<string, unknown>;
  created_at: Date;
  reply_id: string | null;
  reply_content: string | null;
  reply_author: string | null;
  reply_created_at: Date | null;
}

/** The newest jobs (window) with their answer if any: a lateral join on the reply index, one query. */
function windowed(now: number) {
  return sql`
    with recent as (
      select q.id, q.seq, q.content, q.metadata, q.created_at
      from messages q
      where q.source_type = 'jobs'
      order by q.created_at desc, q.seq desc
      limit ${JOB_WINDOW}
    ), jobs as (
      select recent.*, r.id as reply_id, r.content as reply_content, r.author_id as reply_author,
        r.created_at as reply_created_at,
        case
          when r.id is not null then 'completed'
          when coalesce((recent.metadata->'job'->>'expiresAt')::double precision, 0) < ${now} then 'timeout'
          else 'processing'
        end as state
      from recent
      left join lateral (
        select m.id, m.content, m.author_id, m.created_at from messages m
        where m.in_reply_to = recent.id and m.author_id = recent.metadata->'job'->>'agentId'
        order by m.seq limit 1
      ) r on true
      where recent.metadata ? 'job'
    )`;
}

/** The newest jobs, of one state if given, with `total` (all jobs in the window) and `filtered` (of the state). */
export async function listJobs(
  db: Kysely<DatabaseSchema>,
  options: { limit: number; state?: JobState; now: number },
): Promise<{ rows: JobRow[]; total: number; filtered: number }> {
  const state = options.state ?? null;
  const query = sql<JobRow & { total: string; filtered: string }>`
    ${windowed(options.now)}
    select jobs.id, jobs.content, jobs.metadata, jobs.created_at, jobs.reply_id, jobs.reply_content,
      jobs.reply_author, jobs.reply_created_at,
      (select count(*) from jobs) as total,
      (select count(*) from jobs where ${state}::text is null or state = ${state}) as filtered
    from jobs
    where ${state}::text is null or state = ${state}
    order by jobs.created_at desc, jobs.seq desc
    limit ${options.limit}`;
  const result = await storageCall('jobs query', () => query.execute(db));
  if (result.rows.length === 0) {
    const counts = await storageCall('jobs query', () =>
      sql<{ total: string }>`${windowed(options.now)} select count(*) as total from jobs`.execute(
        db,
      ),
    );
    return { rows: [], total: Number(counts.rows[0]?.total ?? 0), filtered: 0 };
  }
  const first = result.rows[0]!;
  return { rows: result.rows, total: Number(first.total), filtered: Number(first.filtered) };
}

export interface JobHealthCounts {
  total: number;
  processing: number;
  completed: number;
  timeout: number;
  averageProcessingTimeMs: number;
}

/** Counts of the window's jobs by state and the mean time to an answer, in one aggregate query. */
export async function jobHealth(db: Kysely<DatabaseSchema>, now: number): Promise<JobHealthCounts> {
  const query = sql<{
    total: string;
    processing: string;
    completed: string;
    timeout: string;
    average_ms: number | string | null;
  }>`
    ${windowed(now)}
    select count(*) as total,
      count(*) filter (where state = 'processing') as processing,
      count(*) filter (where state = 'completed') as completed,
      count(*) filter (where state = 'timeout') as timeout,
      avg(extract(epoch from (reply_created_at - created_at)) * 1000)
        filter (where state = 'completed') as average_ms
    from jobs`;
  const result = await storageCall('jobs query', () => query.execute(db));
  const row = result.rows[0];
  return {
    total: Number(row?.total ?? 0),
    processing: Number(row?.processing ?? 0),
    completed: Number(row?.completed ?? 0),
    timeout: Number(row?.timeout ?? 0),
    averageProcessingTimeMs: Math.max(0, Math.round(Number(row?.average_ms ?? 0))),
  };
}
