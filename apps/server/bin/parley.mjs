#!/usr/bin/env node
// The `parley` command as installed into node_modules/.bin: a file that exists before the build, so that
// installing the workspace can link it (a bin pointing into dist/ is missing until the first build, and pnpm
// warns about it). It runs the built CLI, or says how to build it.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));
if (!existsSync(main)) {
  process.stderr.write('parley: not built yet; run `npx -y pnpm@10 build` first\n');
  process.exit(1);
}
await import(main);
