// @ts-check
/**
 * The embedded database's own thread. PGlite runs PostgreSQL as WebAssembly, synchronously: on the main thread
 * every query stopped the event loop that serves HTTP and the socket. Here it runs on its own core, and the
 * main thread only passes messages (see pglite-worker-client.ts).
 *
 * The same file, run as a process (`node pglite-worker.js <dataDir>`), creates a new database folder and exits:
 * see createDatabaseFolder.
 *
 * Plain JavaScript on purpose: a worker is loaded by Node itself, which runs this file both from the sources
 * (tests) and from the build.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { preparedQueries } from './pglite-prepared.js';

/**
 * PostgreSQL settings for a database with one user (see docs/decisions.md, "Memory of the embedded database").
 * initdb writes shared_buffers = 128MB and max_connections = 100 into postgresql.conf, sized for a server: in
 * WebAssembly shared memory is zeroed at start, so all of it is resident from the first second and never given
 * back. 4 MB of buffers (SQLite's default page cache is 2 MB) holds what a chat server touches: recent
 * messages; the rest of the files sit in the operating system's cache, a read away. One process never has more
 * than one connection.
 */
const START_PARAMS = [
  ...PGlite.defaultStartParams,
  '-c',
  'shared_buffers=4MB',
  '-c',
  'max_connections=8',
];

/**
 * Creates a new database folder in a child process that exits afterwards. PGlite's initdb runs a second
 * PostgreSQL instance beside the first and copies its files over: the WebAssembly memories and the compiler's
 * allocations of that phase (about 450 MB) would stay with this process for good. A process gives all of it
 * back when it exits; a thread does not (the allocator keeps what the compiler freed).
 * @param {string} folder
 * @returns {Promise<void>}
 */
function createDatabaseFolder(folder) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), folder], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (data) => (stderr += data));
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (code === 0) resolve();
      else {
        const lines = stderr.split('\n').map((line) => line.trim());
        const detail = lines.find((line) => /error/i.test(line)) ?? lines.find(Boolean) ?? '';
        reject(new Error(`creating the database failed (${signal ?? code}) ${detail}`.trim()));
      }
    });
  });
}

/**
 * Runs `start` with V8 compiling new WebAssembly with its baseline compiler only (Liftoff). V8 otherwise
 * recompiles PostgreSQL's hot functions with TurboFan on background threads while the database starts, and the
 * memory allocator keeps what those compilations freed: 35 to 70 MB of resident memory for good (measured,
 * docs/decisions.md). Inserts measured no slower with Liftoff alone. V8 flags are process-wide, so the default comes
 * back as soon as the module is compiled; other WebAssembly of the process is compiled as usual.
 * @template T
 * @param {() => Promise<T>} start
 * @returns {Promise<T>}
 */
async function withBaselineWasmCompiler(start) {
  const set = (/** @type {string} */ flag) => {
    try {
      setFlagsFromString(flag);
    } catch {
      // A Node.js that refuses flags at run time costs memory, not correctness.
    }
  };
  set('--liftoff-only');
  try {
    return await start();
  } finally {
    set('--no-liftoff-only');
  }
}

/**
 * Compiles PGlite's WebAssembly module from bytes read into a WebAssembly.Memory instead of a Buffer. PGlite
 * reads the 8.7 MB file into a Buffer, which the C allocator serves with mmap; freed once compiled, it raises
 * glibc's mmap threshold to its size for good, so every later allocation of the thread up to 8.7 MB (the
 * compiler's, PostgreSQL's start-up) comes from the thread's malloc arena, which keeps what was freed: about
 * 6 MB of resident memory at rest (docs/decisions.md, "Resident memory at rest (issue 42)"). V8 maps a
 * WebAssembly.Memory itself, outside malloc, and unmaps it when collected. The module is the same file, compiled
 * the same way, so queries run the same code.
 * @returns {Promise<WebAssembly.Module>}
 */
async function compilePglite() {
  // The runtime's WebAssembly object: the project's TypeScript libraries declare its types, not the value.
  const wasm =
    /** @type {{ Memory: new (descriptor: { initial: number }) => { buffer: ArrayBuffer }, compile(bytes: Uint8Array): Promise<WebAssembly.Module> }} */ (
      Reflect.get(globalThis, 'WebAssembly')
    );
  const file = await open(new URL('pglite.wasm', import.meta.resolve('@electric-sql/pglite')), 'r');
  try {
    const { size } = await file.stat();
    const pages = Math.ceil(size / 65_536);
    const bytes = new Uint8Array(new wasm.Memory({ initial: pages }).buffer, 0, size);
    for (let offset = 0; offset < size;) {
      const { bytesRead } = await file.read(bytes, offset, size - offset, offset);
      if (bytesRead === 0) throw new Error(`pglite.wasm ended at ${offset} of ${size} bytes`);
      offset += bytesRead;
    }
    return await wasm.compile(bytes);
  } finally {
    await file.close();
  }
}

/**
 * PGlite's build of pgvector: an optional peer of the server (its own peer is PGlite 0.5.14, which npm would
 * refuse to install beside ours for everyone), so installed by those who ask for it.
 */
async function pgvectorExtension() {
  try {
    return (await import('@electric-sql/pglite-pgvector')).vector;
  } catch {
    throw new Error(
      "MEMORY_VECTOR_INDEX=hnsw needs PGlite's pgvector: npm install @electric-sql/pglite-pgvector@0.0.15 --legacy-peer-deps",
    );
  }
}

/**
 * Opens the database of `folder` (creating it first if it is new), or one in memory; with `pgvector`, PGlite's
 * build of pgvector is loaded (the memory store then creates the extension and its HNSW index).
 * @param {string | null} folder
 * @param {boolean} pgvector
 * @returns {Promise<PGlite>}
 */
async function openDatabase(folder, pgvector) {
  if (folder && !existsSync(join(folder, 'PG_VERSION'))) await createDatabaseFolder(folder);
  const extensions = pgvector ? { vector: await pgvectorExtension() } : undefined;
  return withBaselineWasmCompiler(async () =>
    PGlite.create(folder ?? undefined, {
      startParams: START_PARAMS,
      pgliteWasmModule: await compilePglite(),
      ...(extensions ? { extensions } : {}),
    }),
  );
}

if (isMainThread) {
  // Run as a process by createDatabaseFolder: initdb, then exit.
  const folder = process.argv[2];
  if (!folder) throw new Error('usage: node pglite-worker.js <dataDir>');
  const created = await PGlite.create(folder);
  await created.close();
  process.exit(0);
}

/** @type {{ dataDir: string | null, pgvector: boolean }} */
const { dataDir, pgvector } = workerData;
/** @type {Promise<PGlite>} */
const opening = openDatabase(dataDir, pgvector === true);
// Until a query awaits it, a failure to open must not be an unhandled rejection.
opening.catch(() => undefined);
/** The server's statements, prepared once they repeat (pglite-prepared.js). */
const querying = opening.then((pglite) => preparedQueries(pglite));
querying.catch(() => undefined);

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
  const pglite = await opening;
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

/** @param {{ type: string, sql?: string, params?: unknown[], data?: Uint8Array }} message */
async function handle(message) {
  switch (message.type) {
    case 'query': {
      const query = await querying;
      return query(/** @type {string} */ (message.sql), message.params);
    }
    case 'copy': {
      const pglite = await opening;
      const data = /** @type {Uint8Array} */ (message.data);
      const result = await pglite.query(/** @type {string} */ (message.sql), [], {
        blob: new Blob([data]),
      });
      return { rows: [], affectedRows: result.affectedRows };
    }
    case 'sync':
      // One after another, so a segment switch never closes a handle another sync is using.
      syncs = syncs.then(syncWal, syncWal);
      await syncs;
      return null;
    case 'close':
      await syncs.catch(() => undefined);
      await segment?.handle.close();
      // A database that never opened has nothing to close.
      await (await opening.catch(() => undefined))?.close();
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
