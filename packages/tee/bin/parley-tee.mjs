#!/usr/bin/env node
// The `parley-tee` command. A committed file rather than `dist/cli.js` itself, so that `pnpm install` in a fresh
// clone can link the command before anything is built; the program is loaded from `dist/` when it runs.
import { existsSync } from 'node:fs';

const program = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(program)) {
  process.stderr.write('parley-tee: not built yet; run `npx -y pnpm@10 build` first\n');
  process.exit(2);
}
const { runProgram } = await import(program.href);
runProgram();
