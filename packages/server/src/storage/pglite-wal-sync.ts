import { type FileHandle, open } from 'node:fs/promises';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';

/**
 * Makes PGlite's commits durable. PostgreSQL fsyncs its write-ahead log at commit, but PGlite's filesystem layer
 * turns those fsyncs into no-ops (under strace: pwrite, never fsync), so a commit survives a process crash but
 * not a power loss. Syncing the WAL segment that holds the commit closes that gap: on restart PostgreSQL
 * replays the WAL. One sync covers every commit before it, so group commit pays it once per batch.
 */
export function createPGliteWalSync(
  pglite: PGlite,
  dataDir: string,
): { sync: () => Promise<void>; close: () => Promise<void> } {
  let current: { name: string; handle: FileHandle } | undefined;
  let tail: Promise<void> = Promise.resolve();

  async function openSegment(name: string): Promise<FileHandle | undefined> {
    try {
      return await open(join(dataDir, 'pg_wal', name), 'r+');
    } catch (error) {
      // Right after a segment switch the next file may not exist yet: nothing was written to it.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async function syncOnce() {
    const { rows } = await pglite.query<{ name: string }>(
      'select pg_walfile_name(pg_current_wal_insert_lsn()) as name',
    );
    const name = rows[0]?.name;
    if (!name) return;
    if (current?.name !== name) {
      // The segment being left may still hold commits that were never synced.
      await current?.handle.datasync();
      const handle = await openSegment(name);
      if (!handle) return;
      await current?.handle.close();
      current = { name, handle };
      // A new segment file is durable only once its directory entry is.
      const directory = await open(join(dataDir, 'pg_wal'), 'r');
      await directory.sync().finally(() => directory.close());
    }
    await current.handle.datasync();
  }

  return {
    sync() {
      // Syncs run one after another so a segment switch never closes a handle another sync is using.
      tail = tail.then(syncOnce, syncOnce);
      return tail;
    },
    async close() {
      await tail.catch(() => undefined);
      await current?.handle.close();
      current = undefined;
    },
  };
}
