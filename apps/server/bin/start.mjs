#!/usr/bin/env node
// The repository's `start` script: builds the server (showing progress), then runs `node apps/server/dist/main.js`
// with the arguments given, forwarding signals to it.
//
// Why a launcher: `npx -y pnpm@10 start` runs this under npx and pnpm, and neither forwards SIGTERM: killing npx
// would leave the server running as an orphan. So this process forwards SIGINT, SIGTERM and SIGHUP to the server,
// and, on Linux, watches the processes that started it: when one of them goes away (npx killed), it stops the
// server as if it had received SIGTERM. Process managers should run `node apps/server/dist/main.js` directly.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const args = process.argv.slice(2);
const passthrough = args[0] === '--' ? args.slice(1) : args;

/** Parent pid of `pid` from /proc (Linux); undefined when gone or unknown. */
function parentOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** This process's ancestors up to (not including) init, each with the parent it had at start. */
function ancestors() {
  const chain = [];
  let pid = process.ppid;
  while (pid > 1 && chain.length < 4) {
    const parent = parentOf(pid);
    if (parent === undefined) break;
    chain.push({ pid, parent });
    pid = parent;
  }
  return chain;
}

const quiet = passthrough.some((arg) => ['--help', '-h', '--version', '-v'].includes(arg));
// PARLEY_SKIP_BUILD=1 runs what is built already (tests of this launcher, or after `npx -y pnpm@10 build`).
if (process.env.PARLEY_SKIP_BUILD !== '1') {
  if (!quiet)
    process.stderr.write(
      'parley: building (the first start builds every package; later ones come from the cache)…\n',
    );
  const build = spawnSync(
    process.execPath,
    [
      join(root, 'node_modules', 'turbo', 'bin', 'turbo'),
      'run',
      'build',
      '--filter=@parley/server-app...',
      '--output-logs=hash-only',
    ],
    // Progress goes to stderr, so that the server's stdout carries only its own output. Type declarations
    // (most of the build's time) are skipped: running the server needs none.
    {
      cwd: root,
      stdio: ['ignore', quiet ? 'ignore' : process.stderr, 'inherit'],
      env: { ...process.env, PARLEY_NO_DTS: '1' },
    },
  );
  if (build.status !== 0) {
    process.stderr.write('parley: the build failed; run `npx -y pnpm@10 build` to see why\n');
    process.exit(build.status ?? 1);
  }
}

const server = spawn(
  process.execPath,
  [join(root, 'apps', 'server', 'dist', 'main.js'), ...passthrough],
  {
    stdio: 'inherit',
  },
);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => server.kill(signal));
}
const chain = process.platform === 'linux' ? ancestors() : [];
const watch = setInterval(() => {
  if (chain.some(({ pid, parent }) => parentOf(pid) !== parent)) {
    clearInterval(watch);
    server.kill('SIGTERM');
  }
}, 500);
server.on('exit', (code, signal) => {
  clearInterval(watch);
  process.exitCode = code ?? (signal ? 1 : 0);
});
