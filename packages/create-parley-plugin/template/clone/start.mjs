// `npx -y pnpm@10 start` (after `tsc`): starts the server of the Parley clone this plugin was made from, in this
// folder (so `.env` here is read and the database is ./.parley), with this plugin unless PLUGINS says otherwise.
// The clone's launcher builds the server first when it needs to, and stops it when this process goes away.
import { spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const launcher = resolve(here, 'CLONE_RELATIVE', 'apps', 'server', 'bin', 'start.mjs');
const server = spawn(process.execPath, [launcher, ...process.argv.slice(2)], {
  cwd: here,
  stdio: 'inherit',
  env: { ...process.env, PLUGINS: process.env.PLUGINS ?? './dist/index.js' },
});
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => server.kill(signal));
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
