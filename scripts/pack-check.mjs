#!/usr/bin/env node
// Proves the publishable packages work outside the workspace: each is packed as it would be published,
// installed with plain npm into an empty folder, imported at run time and type-checked as a consumer would.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const packages = ['core', 'plugin-sdk', 'client', 'tee', 'server'];
const work = mkdtempSync(join(tmpdir(), 'parley-pack-'));
const tarballs = join(work, 'tarballs');
const consumer = join(work, 'consumer');
const run = (command, args, cwd) =>
  execFileSync(command, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });

try {
  for (const name of packages) {
    // pnpm pack rewrites workspace: ranges to real versions, as publishing does.
    run(
      'npx',
      ['-y', 'pnpm@10', 'pack', '--pack-destination', tarballs],
      join(root, 'packages', name),
    );
  }
  const files = readdirSync(tarballs).map((file) => join(tarballs, file));
  writeFileSync(join(work, 'package.json'), '{}');
  run('mkdir', ['-p', consumer]);
  writeFileSync(
    join(consumer, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
  run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...files], consumer);

  writeFileSync(
    join(consumer, 'index.ts'),
    `import { SOCKET_MESSAGE_TYPE, agentMessageSchema, type StoredMessage } from '@parley/core';
import { definePlugin, ResponseStreamExtractor, type AgentRuntime } from '@parley/plugin-sdk';
import { PassthroughExtractor } from '@parley/plugin-sdk/extractors';
import { createParleyClient, type ParleyClient } from '@parley/client';
import { createTeeClient } from '@parley/tee';
import { createServer, type ServerOptions } from '@parley/server';

const type: SOCKET_MESSAGE_TYPE = SOCKET_MESSAGE_TYPE.SEND_MESSAGE;
const plugin = definePlugin({ name: 'p', routes: [] });
const options: ServerOptions = { port: 0, plugins: [plugin] };
const client: ParleyClient = createParleyClient({ baseUrl: 'http://localhost:3000' });
const stored: StoredMessage | undefined = undefined;
const runtime: AgentRuntime | undefined = undefined;
console.log(type, typeof agentMessageSchema.parse, typeof createServer, typeof createTeeClient,
  typeof client.listAgents, new ResponseStreamExtractor().done, new PassthroughExtractor().done,
  options.port, stored, runtime);
`,
  );
  writeFileSync(
    join(consumer, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        types: ['node'],
        typeRoots: [join(root, 'node_modules/@types')],
      },
      files: ['index.ts'],
    }),
  );
  run('node', [join(root, 'node_modules/typescript/bin/tsc'), '-p', consumer], consumer);
  const printed = run(
    'node',
    [
      '--input-type=module',
      '-e',
      "for (const name of ['core','plugin-sdk','client','tee','server']) { const m = await import('@parley/' + name); console.log(name, Object.keys(m).length); }",
    ],
    consumer,
  );
  process.stdout.write(printed);
  console.log(
    `pack-check: ${packages.length} packages packed, installed with npm, imported and type-checked`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
