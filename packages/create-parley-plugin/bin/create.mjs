#!/usr/bin/env node
// create-parley-plugin: writes a Parley plugin (an action the agent can call, a route, their tests, package.json,
// tsconfig.json) into a new folder.
//
//   node packages/create-parley-plugin/bin/create.mjs ~/my-plugin   (from a clone of Parley: links the clone)
//   npm create parley-plugin my-plugin                              (once the @parley packages are published)
//   node packages/create-parley-plugin/bin/create.mjs my-plugin --tarballs ./tarballs   (packed local builds)
//
// Run from a clone of the Parley repository (this file in packages/create-parley-plugin/bin of a pnpm workspace
// with packages/plugin-sdk), it builds what the plugin needs there when it is not built yet and links the plugin
// to the clone's @parley/plugin-sdk and @parley/server (pnpm `link:`), and `npm start` (pnpm start) starts the
// clone's server with the plugin: no tarball, no registry. `--registry` makes the published plugin instead.
//
// --tarballs DIR points the plugin at packed local builds (`pnpm pack`) of @parley/plugin-sdk and the @parley
// packages it depends on, instead of the npm registry. The paths are written relative to the plugin's folder, as
// npm writes them itself, so `npm install DIR/parley-server-0.1.0.tgz` later matches its override.
//
// The plugin takes the SDK as a peer dependency: installed beside @parley/server, it uses the server's SDK.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const TEMPLATE = join(dirname(fileURLToPath(import.meta.url)), '..', 'template');
const SDK_RANGE = '^0.1.0';
/** The Parley clone this file is in, if it is in one: the root of the workspace that holds it. */
const CLONE = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

function isParleyClone(dir) {
  try {
    const sdk = JSON.parse(
      readFileSync(join(dir, 'packages', 'plugin-sdk', 'package.json'), 'utf8'),
    );
    return (
      sdk.name === '@parley/plugin-sdk' &&
      existsSync(join(dir, 'pnpm-workspace.yaml')) &&
      existsSync(join(dir, 'apps', 'server', 'bin', 'start.mjs'))
    );
  } catch {
    return false;
  }
}

function fail(message) {
  process.stderr.write(`create-parley-plugin: ${message}\n`);
  process.exit(1);
}

let parsed;
try {
  parsed = parseArgs({
    args: process.argv.slice(2),
    options: {
      tarballs: { type: 'string' },
      registry: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
  });
} catch (error) {
  fail(error.message);
}
const { values, positionals } = parsed;
if (values.help || positionals.length !== 1) {
  process.stdout.write('Usage: create-parley-plugin <folder> [--tarballs DIR | --registry]\n');
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

/** The clone's path as seen from the plugin's folder, with `/`. */
function fromTarget(path) {
  const relativePath = relative(target, path).split(sep).join('/');
  return relativePath === '' ? '.' : relativePath;
}

/**
 * Makes sure the clone has built what the plugin links to, declarations included (`npx -y pnpm@10 start` builds
 * without them): each package's `prepack` check builds it, and the packages it depends on, when a file is missing.
 */
function ensureCloneBuilt() {
  for (const name of ['plugin-sdk', 'server']) {
    const built = spawnSync(process.execPath, [join(CLONE, 'scripts', 'ensure-declarations.mjs')], {
      cwd: join(CLONE, 'packages', name),
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    if (built.status !== 0) fail(`could not build packages/${name} in ${CLONE}`);
  }
}

if (values.tarballs && values.registry) fail('--tarballs and --registry exclude each other');
const fromClone = !values.tarballs && !values.registry && isParleyClone(CLONE);
if (fromClone) {
  if (!existsSync(join(CLONE, 'node_modules'))) {
    fail(
      `the Parley clone at ${CLONE} is not installed yet: run \`npx -y pnpm@10 install\` there first`,
    );
  }
  ensureCloneBuilt();
}

await mkdir(target, { recursive: true });
await cp(TEMPLATE, target, { recursive: true });
await rename(join(target, 'gitignore'), join(target, '.gitignore'));
if (fromClone) {
  for (const file of await readdir(join(target, 'clone'))) {
    await rename(join(target, 'clone', file), join(target, file));
  }
}
await rm(join(target, 'clone'), { recursive: true, force: true });

const specs = values.tarballs ? await tarballSpecs(values.tarballs) : undefined;
const linkTo = (name) => `link:${fromTarget(join(CLONE, 'packages', name))}`;
const sdkSpec = fromClone ? linkTo('plugin-sdk') : (specs?.['@parley/plugin-sdk'] ?? SDK_RANGE);
const serverSpec = fromClone ? linkTo('server') : (specs?.['@parley/server'] ?? SDK_RANGE);
const files = ['package.json', 'README.md', 'src/index.ts', 'src/index.test.ts'];
if (fromClone) files.push('start.mjs');
for (const file of files) {
  const path = join(target, file);
  const text = (await readFile(path, 'utf8'))
    .replaceAll('PLUGIN_NAME', name)
    .replaceAll('SDK_RANGE', SDK_RANGE)
    .replaceAll('SDK_SPEC', sdkSpec)
    .replaceAll('SERVER_SPEC', serverSpec)
    .replaceAll('CLONE_RELATIVE', fromTarget(CLONE))
    .replaceAll('CLONE_PATH', CLONE);
  await writeFile(path, text);
}
const manifestPath = join(target, 'package.json');
const manifest = JSON.parse(await readFile(manifestPath, 'utf8'));
if (fromClone) {
  manifest.scripts.start = 'tsc && node start.mjs';
  manifest.files = ['dist'];
}
if (specs) {
  // The SDK's own @parley dependencies are not on the registry yet either: npm and pnpm both take overrides. An
  // override of a direct dependency must be the same spec, which these are.
  manifest.overrides = specs;
  manifest.pnpm = { overrides: specs };
}
await writeFile(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);

const where = relative(process.cwd(), target) || '.';
const steps = fromClone
  ? ['npx -y pnpm@10 install', 'npx -y pnpm@10 test', 'npx -y pnpm@10 start']
  : ['npm install', 'npm test', 'npm run build'];
process.stdout.write(
  `Created ${name} in ${where}${fromClone ? `, linked to the Parley clone at ${CLONE}` : ''}.\n\n` +
    `  cd ${where}\n${steps.map((step) => `  ${step}\n`).join('')}`,
);
