#!/usr/bin/env node
// create-parley-plugin: writes a Parley plugin (a route, its test, package.json, tsconfig.json) into a new folder.
//
//   npm create parley-plugin my-plugin
//   node packages/create-parley-plugin/bin/create.mjs my-plugin --tarballs ./tarballs   (before the SDK is published)
//
// --tarballs DIR points the plugin at packed local builds (`pnpm pack`) of @parley/plugin-sdk and the @parley
// packages it depends on, instead of the npm registry. The paths are written relative to the plugin's folder, as
// npm writes them itself, so `npm install DIR/parley-server-0.1.0.tgz` later matches its override.
//
// The plugin takes the SDK as a peer dependency: installed beside @parley/server, it uses the server's SDK.
import { cp, mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const TEMPLATE = join(dirname(fileURLToPath(import.meta.url)), '..', 'template');
const SDK_RANGE = '^0.1.0';

function fail(message) {
  process.stderr.write(`create-parley-plugin: ${message}\n`);
  process.exit(1);
}

let parsed;
try {
  parsed = parseArgs({
    args: process.argv.slice(2),
    options: { tarballs: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
  });
} catch (error) {
  fail(error.message);
}
const { values, positionals } = parsed;
if (values.help || positionals.length !== 1) {
  process.stdout.write('Usage: create-parley-plugin <folder> [--tarballs DIR]\n');
  process.exit(values.help ? 0 : 1);
}

const target = resolve(positionals[0]);
const name = basename(target)
  .toLowerCase()
  .replace(/[^a-z0-9-]+/g, '-');
if (!/^[a-z][a-z0-9-]*$/.test(name)) fail(`"${basename(target)}" is not a usable plugin name`);
const existing = await readdir(target).catch(() => []);
if (existing.length > 0) fail(`${target} is not empty`);

/** `file:` specs (relative to the plugin's folder, with `/`) of the packed @parley tarballs in `dir`, by name. */
async function tarballSpecs(dir) {
  const specs = {};
  for (const file of (await readdir(dir)).sort()) {
    const match = /^parley-(.+)-\d+\.\d+\.\d+.*\.tgz$/.exec(file);
    if (!match) continue;
    const path = relative(target, resolve(dir, file)).split(sep).join('/');
    specs[`@parley/${match[1]}`] = `file:${path.startsWith('.') ? path : `./${path}`}`;
  }
  if (!specs['@parley/plugin-sdk']) fail(`no parley-plugin-sdk-*.tgz in ${dir}`);
  return specs;
}

await mkdir(target, { recursive: true });
await cp(TEMPLATE, target, { recursive: true });
await rename(join(target, 'gitignore'), join(target, '.gitignore'));
const specs = values.tarballs ? await tarballSpecs(values.tarballs) : undefined;
for (const file of ['package.json', 'README.md', 'src/index.ts', 'src/index.test.ts']) {
  const path = join(target, file);
  const text = (await readFile(path, 'utf8'))
    .replaceAll('PLUGIN_NAME', name)
    .replaceAll('SDK_RANGE', SDK_RANGE)
    .replaceAll('SDK_SPEC', specs?.['@parley/plugin-sdk'] ?? SDK_RANGE);
  await writeFile(path, text);
}
if (specs) {
  // The SDK's own @parley dependencies are not on the registry yet either: npm and pnpm both take overrides. An
  // override of a direct dependency must be the same spec, which these are.
  const path = join(target, 'package.json');
  const manifest = JSON.parse(await readFile(path, 'utf8'));
  manifest.overrides = specs;
  manifest.pnpm = { overrides: specs };
  await writeFile(path, `${JSON.stringify(manifest, null, 2)}\n`);
}
const where = relative(process.cwd(), target) || '.';
process.stdout.write(
  `Created ${name} in ${where}.\n\n  cd ${where}\n  npm install\n  npm test\n  npm run build\n`,
);
