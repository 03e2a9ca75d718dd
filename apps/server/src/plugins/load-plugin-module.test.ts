import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentRuntime, Character } from '@parley/plugin-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPluginModule } from './load-plugin-module';
import { pluginsForAgents } from './plugins-for-agents';
import { resolvePlugins } from './resolve-plugins';

let cwd: string;

async function writePackage(name: string, packageJson: object, files: Record<string, string>) {
  const folder = join(cwd, 'node_modules', name);
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, 'package.json'), JSON.stringify({ name, ...packageJson }));
  for (const [file, text] of Object.entries(files)) await writeFile(join(folder, file), text);
}

const esmPlugin = (name: string) =>
  `export default { name: '${name}', routes: [{ type: 'GET', path: '/${name}', handler: (_q, r) => r.json({}) }] };`;

beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'parley-plugin-load-'));
  await writeFile(join(cwd, 'package.json'), JSON.stringify({ name: 'app', type: 'module' }));
  // What elizaOS plugins publish: ESM only, an `exports` map with nothing but an `import` condition.
  await writePackage(
    '@acme/plugin-esm',
    {
      type: 'module',
      exports: { '.': { import: { types: './index.d.ts', default: './index.js' } } },
    },
    { 'index.js': esmPlugin('esm') },
  );
  await writePackage(
    'plugin-cjs-only',
    { exports: { '.': { require: './index.cjs' } } },
    { 'index.cjs': `module.exports = { name: 'cjs', routes: [] };` },
  );
  await writePackage(
    'plugin-named-export',
    { type: 'module', main: './index.js' },
    {
      'index.js': `export const helper = 1; export const acmePlugin = { name: 'named', routes: [] };`,
    },
  );
  await writeFile(join(cwd, 'local-plugin.mjs'), esmPlugin('local'));
});

afterAll(async () => {
  await rm(cwd, { recursive: true, force: true });
});

describe('loadPluginModule', () => {
  it('loads an ESM-only package (exports with only an import condition) by name', async () => {
    expect((await loadPluginModule('@acme/plugin-esm', cwd)).name).toBe('esm');
  });

  it('loads a package that only offers a require condition, a path, and a single named plugin export', async () => {
    expect((await loadPluginModule('plugin-cjs-only', cwd)).name).toBe('cjs');
    expect((await loadPluginModule('./local-plugin.mjs', cwd)).name).toBe('local');
    expect((await loadPluginModule(join(cwd, 'local-plugin.mjs'), cwd)).name).toBe('local');
    expect((await loadPluginModule('plugin-named-export', cwd)).name).toBe('named');
  });

  it('says everything it tried when a package is missing', async () => {
    const error = await loadPluginModule('@acme/missing', cwd).catch((caught: Error) => caught);
    expect(error).toBeInstanceOf(Error);
    const message = (error as Error).message;
    expect(message).toContain(
      'PLUGINS: plugin "@acme/missing" was not found. Tried: an example plugin (',
    );
    expect(message).toContain(
      `the package from ${cwd} with import conditions (ERR_MODULE_NOT_FOUND`,
    );
    expect(message).toContain(`the package from ${cwd} with require conditions (MODULE_NOT_FOUND`);
    expect(message).toContain('give a path');
  });

  it('names the file when a path cannot be loaded', async () => {
    await expect(loadPluginModule('./nowhere.js', cwd)).rejects.toThrow(
      /PLUGINS: plugin file "\.\/nowhere\.js" \(file:.*nowhere\.js\) cannot be loaded \(ERR_MODULE_NOT_FOUND/,
    );
  });

  it('resolves PLUGINS items of every kind together, each plugin once', async () => {
    const plugins = await resolvePlugins(
      'webhook,@acme/plugin-esm,./local-plugin.mjs,webhook',
      cwd,
    );
    expect(plugins.map((plugin) => plugin.name)).toEqual(['webhook', 'esm', 'local']);
  });
});

describe('pluginsForAgents', () => {
  const agentOf = (character: Character) => ({ character }) as unknown as AgentRuntime;

  it("loads what a character's plugins list names (an example, a package, a path) for that agent only", async () => {
    const loaded = await resolvePlugins('webhook', cwd);
    const ada: Character = {
      name: 'Ada',
      plugins: ['github', '@acme/plugin-esm', './local-plugin.mjs'],
    };
    const bob: Character = { name: 'Bob' };
    const cy: Character = { name: 'Cy', plugins: ['webhook'] };
    const { plugins, pluginsFor } = await pluginsForAgents(loaded, [ada, bob, cy], cwd);
    expect(pluginsFor(agentOf(ada)).map((plugin) => plugin.name)).toEqual([
      'github',
      'esm',
      'local',
    ]);
    expect(pluginsFor(agentOf(bob)).map((plugin) => plugin.name)).toEqual(['webhook']);
    expect(pluginsFor(agentOf(cy)).map((plugin) => plugin.name)).toEqual(['webhook']);
    expect(plugins.map((plugin) => plugin.name)).toEqual(['webhook', 'github', 'esm', 'local']);
  });

  it('stops with the character, the entry and what was tried when an entry cannot be loaded', async () => {
    const loaded = await resolvePlugins('webhook', cwd);
    await expect(
      pluginsForAgents(loaded, [{ name: 'Dee', plugins: ['@elizaos/plugin-discord'] }], cwd),
    ).rejects.toThrow(
      /^character Dee: plugin "@elizaos\/plugin-discord" was not found\. Tried: a plugin loaded by PLUGINS \(webhook\); an example plugin.*\. Install it where the app runs \(`npm install @elizaos\/plugin-discord` in /,
    );
  });
});
