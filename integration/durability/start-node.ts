import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** A Parley process started for a test. */
export interface NodeProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** Kills it with SIGKILL, as a crash would, and waits for it to be gone. */
  crash(): Promise<void>;
  /** Stops it with SIGTERM and waits for it to exit. */
  stop(): Promise<void>;
}

const SCRIPT = fileURLToPath(new URL('./pglite-node.mjs', import.meta.url));

/** Starts `pglite-node.mjs` on `dataDir` and resolves once it serves. */
export async function startNode(dataDir: string): Promise<NodeProcess> {
  const child = spawn(process.execPath, [SCRIPT], {
    env: { ...process.env, DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = createInterface({ input: child.stdout });
  const url = await new Promise<string>((resolve, reject) => {
    lines.once('line', (line) => resolve((JSON.parse(line) as { url: string }).url));
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${stderr}`)));
  });
  const exited = once(child, 'exit');
  return {
    url,
    child,
    async crash() {
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
