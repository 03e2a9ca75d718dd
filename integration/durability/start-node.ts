import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** A Parley process started for a test. */
export interface NodeProcess {
  readonly url: string;
  /** Vital signs reported so far (with `reportMs`). */
  readonly vitals: Vitals[];
  readonly child: ChildProcess;
  /** Kills it with SIGKILL, as a crash would, and waits for it to be gone. */
  crash(): Promise<void>;
  /** Stops it with SIGTERM and waits for it to exit. */
  stop(): Promise<void>;
}

/** One report of a running server's resident memory and event-loop delay. */
export interface Vitals {
  rssMb: number;
  delayP99Ms: number;
  delayMaxMs: number;
}

const SCRIPT = fileURLToPath(new URL('./pglite-node.mjs', import.meta.url));

/** Starts `pglite-node.mjs` on `dataDir` and resolves once it serves. */
export async function startNode(
  dataDir: string,
  options: { reportMs?: number; env?: Record<string, string> } = {},
): Promise<NodeProcess> {
  const child = spawn(process.execPath, ['--expose-gc', SCRIPT], {
    env: {
      ...process.env,
      ...options.env,
      DATA_DIR: dataDir,
      REPORT_MS: String(options.reportMs ?? 0),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = createInterface({ input: child.stdout });
  const vitals: Vitals[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    lines.on('line', (line) => {
      const report = JSON.parse(line) as { url?: string; vitals?: Vitals };
      if (report.url) resolve(report.url);
      if (report.vitals) vitals.push(report.vitals);
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${stderr}`)));
  });
  const exited = once(child, 'exit');
  return {
    url,
    vitals,
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
