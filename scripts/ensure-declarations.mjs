#!/usr/bin/env node
// `prepack` of each publishable package: packs its type declarations, whatever built `dist/` last.
//
// `npx -y pnpm@10 start` builds without declarations (PARLEY_NO_DTS=1: a server needs none, and they are most
// of the build's time), so after it a package's `dist/` has JavaScript only, and `pnpm pack` would make a
// tarball no TypeScript project can use (a plugin made by create-parley-plugin fails to build against it).
// This checks every `types` file the package's manifest names; when one is missing, it builds the package and
// the packages it depends on with declarations (turbo, from its cache when it can), then checks again.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** Every `types` path of a manifest: the top-level one and each export's, conditions included. */
function declaredTypes(manifest) {
  const found = new Set();
  const visit = (value, key) => {
    if (typeof value === 'string') {
      if (key === 'types' || key === 'typings') found.add(value);
    } else if (value && typeof value === 'object') {
      for (const [name, inner] of Object.entries(value)) visit(inner, name);
    }
  };
  visit(manifest.types, 'types');
  visit(manifest.typings, 'typings');
  visit(manifest.exports, '');
  return [...found];
}

/** The folder holding pnpm-workspace.yaml, from `start` up; undefined outside a workspace. */
function workspaceRoot(start) {
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'pnpm-workspace.yaml'))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

const packageDir = process.cwd();
const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
const missing = () => declaredTypes(manifest).filter((path) => !existsSync(join(packageDir, path)));

let absent = missing();
if (absent.length > 0) {
  const root = workspaceRoot(packageDir);
  const turbo = root && join(root, 'node_modules', 'turbo', 'bin', 'turbo');
  if (!turbo || !existsSync(turbo)) {
    process.stderr.write(
      `${manifest.name}: ${absent.join(', ')} missing and no workspace to build it in\n`,
    );
    process.exit(1);
  }
  process.stderr.write(
    `${manifest.name}: ${absent.join(', ')} missing (a build without declarations, such as \`pnpm start\`'s); building them…\n`,
  );
  const env = { ...process.env };
  delete env.PARLEY_NO_DTS;
  // Build output goes to stderr: `pnpm pack` prints the tarball's name on stdout.
  const build = spawnSync(
    process.execPath,
    [turbo, 'run', 'build', `--filter=${manifest.name}...`, '--output-logs=errors-only'],
    { cwd: root, env, stdio: ['ignore', process.stderr, 'inherit'] },
  );
  absent = missing();
  if (build.status !== 0 || absent.length > 0) {
    process.stderr.write(
      `${manifest.name}: not packed: ${absent.length > 0 ? `${absent.join(', ')} still missing` : 'the build failed'}; run \`npx -y pnpm@10 build\`\n`,
    );
    process.exit(1);
  }
}
