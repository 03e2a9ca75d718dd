import { type Kysely, sql } from 'kysely';

/**
 * 0028: the indexes of two listings that read across channels. `messages_author_idx` serves `listByAuthor`
 * (an agent's replies of some sources, newest first: elizaOS's runs), which otherwise scans every message;
 * `messages_jobs_idx` serves elizaOS's `jobs.list` and `jobs.health` (the newest questions of source `jobs`),
 * partial so it costs nothing for the other messages.
 */
export async function createMessageAuthorIndexes(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('messages_author_idx')
    .ifNotExists()
    .on('messages')
    .columns(['author_id', 'source_type', 'created_at desc', 'seq desc'])
    .execute();
  await db.schema
    .createIndex('messages_jobs_idx')
    .ifNotExists()
    .on('messages')
    .columns(['created_at desc', 'seq desc'])
    .where(sql.ref('source_type'), '=', 'jobs')
    .execute();
}
