import { randomBytes } from 'node:crypto';
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
 *
 * A pid alone cannot tell a live holder from an unrelated process that was given the same pid after a crash
 * (containers restart with low pids). The lock therefore also records the holder's start time (from
 * `/proc/<pid>/stat`, where the system has it) and a random nonce: a live process whose start time differs
 * from the recorded one is not the holder, and the lock is stale. Where no start time can be read (no
 * `/proc`), a live pid is taken to be the holder, as before. The nonce lets a holder release only its own
 * lock.
 */
export function lockDataDir(dataDir: string): DataDirLock {
  const path = resolve(dataDir, LOCK_FILE);
  if (heldLocks.has(path)) throw inUse(dataDir, process.pid);
  // Two attempts: a stale lock is broken once, then the folder is taken or someone else won the race.
  for (let attempt = 0; attempt < 2; attempt++) {
    if (tryCreate(path)) return held(path);
    const holder = readLock(path);
    if (holder && holder.pid !== process.pid && isHolderAlive(holder))
      throw inUse(dataDir, holder.pid);
    breakStale(path, dataDir);
  }
  throw inUse(dataDir, readLock(path)?.pid);
}

/** This process's lock contents: pid, start time and nonce (see {@link lockDataDir}). */
const ownNonce = randomBytes(16).toString('hex');
function ownLockText(): string {
  return `${process.pid}\nstarted ${startTimeOf(process.pid) ?? '-'}\nnonce ${ownNonce}\n`;
}

function tryCreate(path: string): boolean {
  const aside = `${path}.${process.pid}.tmp`;
  writeFileSync(aside, ownLockText());
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
  const moved = readLock(aside);
  if (moved && moved.pid !== process.pid && isHolderAlive(moved)) {
    try {
      linkSync(aside, path);
    } catch {
      // Someone else holds it by now; either way the folder is taken.
    }
    rmSync(aside, { force: true });
    throw inUse(dataDir, moved.pid);
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
    if (readLock(path)?.nonce === ownNonce) {
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

/** What a lock file says: the holder's pid, and (locks written by this version) its start time and nonce. */
interface LockContents {
  pid: number;
  started?: string;
  nonce?: string;
}

function readLock(path: string): LockContents | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  const pid = Number.parseInt(text, 10);
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  const started = /^started (\d+)$/m.exec(text)?.[1];
  const nonce = /^nonce ([0-9a-f]+)$/m.exec(text)?.[1];
  return { pid, ...(started ? { started } : {}), ...(nonce ? { nonce } : {}) };
}

/**
 * A process's start time in clock ticks since boot (field 22 of `/proc/<pid>/stat`), or undefined where the
 * system does not say (no `/proc`, or the process is gone).
 */
function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count fields after its end.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const started = fields[19];
    return started && /^\d+$/.test(started) ? started : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the lock's holder still runs: its pid is alive and, where both are known, started when recorded. */
function isHolderAlive(lock: LockContents): boolean {
  if (!isAlive(lock.pid)) return false;
  if (lock.started === undefined) return true;
  const started = startTimeOf(lock.pid);
  return started === undefined || started === lock.started;
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
