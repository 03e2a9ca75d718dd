import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../apps/server/dist/main.js', import.meta.url));
/** The integration package's folder: the app resolves plugins named by package from here. */
const PROJECT = fileURLToPath(new URL('..', import.meta.url));

/** The real app (`apps/server/dist/main.js`) running as a child process. */
export interface RunningApp {
  url: string;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** Sends SIGTERM and resolves with its exit code once it has exited. */
  stop(): Promise<number | null>;
}

/**
 * Starts the built app with `--character` and only the environment given (plus PATH), and waits for its
 * "listening" line. Its output is kept for assertions, and read on so that a full pipe never blocks it.
 */
export async function startApp(
  character: string,
  env: Record<string, string>,
): Promise<RunningApp> {
  const child = spawn(process.execPath, [CLI, '--character', character], {
    cwd: PROJECT,
    env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_FORMAT: 'json', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let url: string | undefined;
  for await (const line of createInterface({ input: child.stdout })) {
    output += `${line}\n`;
    url = /Parley \S+ is listening on (http[^\s"]+)/.exec(line)?.[1];
    if (url) break;
  }
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  if (!url) throw new Error(`the app did not start:\n${output}`);
  return {
    url,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
