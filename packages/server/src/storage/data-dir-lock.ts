import { linkSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ParleyError } from '@parley/core';

/** The lock file's name inside the data folder. */
export const LOCK_FILE = 'parley.lock';

/** An exclusive hold on an embedded database folder; see {@link lockDataDir}. */
export interface DataDirLock {
  /** Gives the folder back. Safe to call more than once. */
  release(): void;
}

/**
 * Takes the embedded database folder for this process, or throws a ParleyError (`CONFLICT`) naming the process
 * that holds it. PGlite is one PostgreSQL process writing its files without locking them: a second server on the
 * same folder would corrupt it.
 *
 * The lock is a file holding the owner's pid, created atomically (written aside, then hard-linked into place, so
 * nobody reads it half written). It is removed on release and at process exit; after a crash (kill -9, power
 * loss) it stays, and the next start finds its pid dead and takes the folder over. A lock with this process's
 * own pid that this process did not take is stale too (a restarted container reuses low pids); one it did take
 * means the folder is open twice in this process, which is refused like a second server.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  const path = resolve(dataDir, LOCK_FILE);
  if (heldLocks.has(path)) throw inUse(dataDir, process.pid);
  // Two attempts: a stale lock is broken once, then the folder is taken or someone else won the race.
  for (let attempt = 0; attempt < 2; attempt++) {
    if (tryCreate(path)) return held(path);
    const holder = readPid(path);
    if (holder !== undefined && holder !== process.pid && isAlive(holder))
      throw inUse(dataDir, holder);
    breakStale(path, dataDir);
  }
  throw inUse(dataDir, readPid(path));
}

function tryCreate(path: string): boolean {
  const aside = `${path}.${process.pid}.tmp`;
  writeFileSync(aside, `${process.pid}\n`);
  try {
    linkSync(aside, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(aside, { force: true });
  }
}

/**
 * Moves a stale lock out of the way. If, between reading it and moving it, another starting server replaced it
 * with its own live lock, that lock goes back and this start fails.
 */
function breakStale(path: string, dataDir: string) {
  const aside = `${path}.${process.pid}.stale`;
  try {
    renameSync(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const moved = readPid(aside);
  if (moved !== undefined && moved !== process.pid && isAlive(moved)) {
    try {
      linkSync(aside, path);
    } catch {
      // Someone else holds it by now; either way the folder is taken.
    }
    rmSync(aside, { force: true });
    throw inUse(dataDir, moved);
  }
  rmSync(aside, { force: true });
}

/** The locks this process holds, by path, released at exit (one listener for all of them). */
const heldLocks = new Map<string, () => void>();
let exitHookInstalled = false;

function held(path: string): DataDirLock {
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    heldLocks.delete(path);
    // Only our own lock: never remove one that a later owner wrote after a takeover.
    if (readPid(path) === process.pid) {
      try {
        unlinkSync(path);
      } catch {
        // Already gone.
      }
    }
  };
  heldLocks.set(path, release);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => {
      for (const releaseLock of [...heldLocks.values()]) releaseLock();
    });
  }
  return { release };
}

function readPid(path: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8'), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function inUse(dataDir: string, pid: number | undefined): ParleyError {
  const by =
    pid === process.pid
      ? 'this process already'
      : pid === undefined
        ? 'another process'
        : `another process (pid ${pid})`;
  return new ParleyError(
    'CONFLICT',
    `the data folder ${dataDir} is in use by ${by}: the embedded database allows one server per DATA_DIR (stop the other server, or set DATABASE_URL to share PostgreSQL)`,
  );
}
