import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type ParleyServer } from '@parley/server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer } from '../support/start-server';

/**
 * The client README's "Before the packages are published" commands, run as written (the tarball folder moved
 * into a temporary one): pack in the repository, install both tarballs into an empty project with npm, then use
 * the installed client against a live server from that project.
 */
const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const README = join(ROOT, 'packages/client/README.md');
const MARKER = '<!-- install-from-tarballs:';

let work: string;
let server: ParleyServer;
let baseUrl: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'parley-client-install-'));
  ({ server, url: baseUrl } = await startServer());
});
afterAll(async () => {
  await server.stop();
  await rm(work, { recursive: true, force: true });
});

/** The commands of the shell block after the marker, each with the folder its comment says it runs in. */
async function readmeCommands(): Promise<{ where: 'repository' | 'project'; command: string }[]> {
  const text = await readFile(README, 'utf8');
  const after = text.slice(text.indexOf(MARKER));
  const block = /```sh\n([\s\S]*?)```/.exec(after)?.[1];
  if (!block) throw new Error('no install block after the marker in the client README');
  const commands: { where: 'repository' | 'project'; command: string }[] = [];
  let where: 'repository' | 'project' | undefined;
  for (const line of block.split('\n').map((each) => each.trim())) {
    if (line.startsWith('# in the Parley repository')) where = 'repository';
    else if (line.startsWith('# in your project')) where = 'project';
    else if (line !== '' && !line.startsWith('#')) {
      if (!where) throw new Error(`no folder said for: ${line}`);
      commands.push({ where, command: line });
    }
  }
  return commands;
}

it('installs the client from tarballs as its README says, and the installed client talks to a server', async () => {
  const tarballs = join(work, 'parley-tarballs');
  const project = join(work, 'project');
  await mkdir(project);
  await writeFile(
    join(project, 'package.json'),
    JSON.stringify({ name: 'project', private: true, type: 'module' }),
  );
  const commands = await readmeCommands();
  expect(commands.map((each) => each.where)).toEqual(['repository', 'project']);
  for (const { where, command } of commands) {
    await run('bash', ['-c', command.replaceAll('~/parley-tarballs', tarballs)], {
      cwd: where === 'repository' ? ROOT : project,
      env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false' },
    });
  }

  const script =
    "import { createParleyClient } from '@parley/client';" +
    'const agents = await createParleyClient({ baseUrl: process.argv[1] }).listAgents();' +
    'process.stdout.write(JSON.stringify(agents));';
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script, baseUrl], {
    cwd: project,
  });
  expect(JSON.parse(stdout)).toEqual([{ id: expect.any(String), name: 'Eliza' }]);
}, 300_000);
