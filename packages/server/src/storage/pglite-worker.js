// @ts-check
/**
 * The embedded database's own thread. PGlite runs PostgreSQL as WebAssembly, synchronously: on the main thread
 * every query stopped the event loop that serves HTTP and the socket. Here it runs on its own core, and the
 * main thread only passes messages (see pglite-worker-client.ts).
 *
 * Plain JavaScript on purpose: a worker is loaded by Node itself, which runs this file both from the sources
 * (tests) and from the build.
 */
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';

/** @type {{ dataDir: string | null }} */
const { dataDir } = workerData;
const pglite = dataDir ? new PGlite(dataDir) : new PGlite();

/** @type {{ name: string, handle: import('node:fs/promises').FileHandle } | undefined} */
let segment;
/** @type {Promise<void>} */
let syncs = Promise.resolve();

/**
 * PostgreSQL fsyncs its write-ahead log at commit, but PGlite's filesystem layer turns those fsyncs into
 * no-ops (under strace: pwrite, never fsync): a commit survives a process crash, not a power loss. Syncing the
 * WAL segment that holds the last commit closes that gap, since PostgreSQL replays the WAL on restart. One sync
 * covers every commit before it.
 */
async function syncWal() {
  if (!dataDir) return;
  const { rows } = await pglite.query(
    'select pg_walfile_name(pg_current_wal_insert_lsn()) as name',
  );
  const name = /** @type {{ name?: string } | undefined} */ (rows[0])?.name;
  if (!name) return;
  if (segment?.name !== name) {
    // The segment being left may still hold commits that were never synced.
    await segment?.handle.datasync();
    let handle;
    try {
      handle = await open(join(dataDir, 'pg_wal', name), 'r+');
    } catch (error) {
      // Right after a segment switch the next file may not exist yet: nothing was written to it.
      if (/** @type {NodeJS.ErrnoException} */ (error).code === 'ENOENT') return;
      throw error;
    }
    await segment?.handle.close();
    segment = { name, handle };
    // A new segment file is durable only once its directory entry is.
    const directory = await open(join(dataDir, 'pg_wal'), 'r');
    await directory.sync().finally(() => directory.close());
  }
  await segment.handle.datasync();
}

/** @param {{ type: string, sql?: string, params?: unknown[] }} message */
async function handle(message) {
  switch (message.type) {
    case 'query': {
      const result = await pglite.query(/** @type {string} */ (message.sql), message.params);
      return { rows: result.rows, affectedRows: result.affectedRows };
    }
    case 'sync':
      // One after another, so a segment switch never closes a handle another sync is using.
      syncs = syncs.then(syncWal, syncWal);
      await syncs;
      return null;
    case 'close':
      await syncs.catch(() => undefined);
      await segment?.handle.close();
      await pglite.close();
      return null;
    default:
      throw new Error(`unknown message ${message.type}`);
  }
}

/**
 * The parts of a database error that cross the thread boundary (codes such as 23505 matter).
 * @param {unknown} error
 */
function toTransferable(error) {
  const source = /** @type {Record<string, unknown>} */ (error ?? {});
  return {
    message: typeof source.message === 'string' ? source.message : String(error),
    code: source.code,
    detail: source.detail,
    constraint: source.constraint,
  };
}

const port = /** @type {import('node:worker_threads').MessagePort} */ (parentPort);
port.on('message', (/** @type {{ id: number, type: string }} */ message) => {
  handle(message).then(
    (result) => port.postMessage({ id: message.id, result }),
    (error) => port.postMessage({ id: message.id, error: toTransferable(error) }),
  );
});
