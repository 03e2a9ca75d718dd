import { spawn, type ChildProcessByStdio, type IOType } from 'node:child_process';
import { createInterface, type Interface } from 'node:readline';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

/** The built CLI: turbo builds the app before its tests (apps/server/turbo.json). */
export const CLI = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

export type ParleyChild = ChildProcessByStdio<null, Readable, Readable | null>;

/**
 * Starts the built `parley` with `args` in `cwd`. Its environment is PATH and `env` only, so no setting of the
 * developer's reaches it; standard output is a pipe, standard error as `stderr` says.
 */
export function spawnParley(
  cwd: string,
  args: string[],
  env: Record<string, string>,
  stderr: IOType = 'pipe',
): ParleyChild {
  return spawn(process.execPath, [CLI, ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', stderr],
  }) as ParleyChild;
}

/** Resolves when `child` has ended, with its exit code and all it printed. */
export async function outputOf(child: ParleyChild) {
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  return { code, stdout, stderr };
}

/**
 * Reads `child`'s JSON log lines and resolves once the server listens (the line that names the chat page), with
 * its URL, the lines read so far (the reader goes on adding to them) and the reader. Rejects if it exits first.
 */
export async function untilListening(child: ParleyChild): Promise<{
  exited: Promise<number | null>;
  lines: Record<string, unknown>[];
  url: string;
  reader: Interface;
}> {
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines: Record<string, unknown>[] = [];
  const reader = createInterface({ input: child.stdout });
  const url = await new Promise<string>((resolve, reject) => {
    reader.on('line', (line) => {
      const record = JSON.parse(line) as Record<string, unknown>;
      lines.push(record);
      if (typeof record.chat === 'string') resolve(record.url as string);
    });
    void exited.then(() => reject(new Error(`parley exited before listening: ${stderr}`)));
  });
  return { exited, lines, url, reader };
}
