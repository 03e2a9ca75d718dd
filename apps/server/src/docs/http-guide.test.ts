import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnParley, untilListening, type ParleyChild } from '../test/parley-child';

const GUIDE = fileURLToPath(new URL('../../../../docs/http-guide.md', import.meta.url));
const DOCUMENTED_BASE = 'http://127.0.0.1:3000';
const run = promisify(execFile);

let cwd: string;
let url: string;
let child: ParleyChild;
let exited: Promise<number | null>;

beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'parley-http-guide-'));
  // The settings the guide says it was written against.
  child = spawnParley(
    cwd,
    [],
    {
      PORT: '0',
      LOG_FORMAT: 'json',
      DATA_DIR: join(cwd, 'data'),
      WEBHOOK_API_KEY: 'change-me',
      GITHUB_WEBHOOK_SECRET: 'gh-secret',
      NOTIFICATION_CHANNEL_ID: '0c4d9a8e-3b2f-4e1a-9c7d-112233445566',
      WEBHOOK_PRIVATE_TARGETS: '127.0.0.1',
      AGENT_MANAGEMENT: 'true',
    },
    'inherit',
  );
  ({ exited, url } = await untilListening(child));
}, 120_000);

afterAll(async () => {
  child.kill('SIGTERM');
  await exited;
  await rm(cwd, { recursive: true, force: true });
});

/** The `sh` blocks of the guide, in order. */
async function shellBlocks(): Promise<string[]> {
  const text = await readFile(GUIDE, 'utf8');
  return [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
}

describe('docs/http-guide.md', () => {
  it('has a block for every endpoint', async () => {
    const all = (await shellBlocks()).join('\n');
    for (const path of [
      '/api/server/health',
      '/api/server/ready',
      '/api/agents',
      '/api/messaging/sessions',
      '/api/messaging/message-servers',
      '/metrics',
      '/api/messaging/submit',
      '/api/messaging/channels/',
      '/api/messaging/replies/',
      '/api/webhooks',
      '/api/tee/status',
      '/api/tee/agents',
      '/api/openapi.json',
      '/api/asyncapi.json',
      '/mcp',
      '/webhook',
      '/secure/webhook',
      '/send-agent-message',
      '/github/webhook',
      '/upload',
      '/schedule',
    ]) {
      expect(all).toContain(`${DOCUMENTED_BASE}${path}`);
    }
    for (const webhookPath of ['/deliveries?', '/retry', '-X DELETE'])
      expect(all).toContain(webhookPath);
  });

  it('runs every block as written against a live server, each answering 2xx', async () => {
    const blocks = await shellBlocks();
    expect(blocks.length).toBeGreaterThan(15);
    for (const block of blocks) {
      // curl -f makes any 4xx or 5xx a non-zero exit, so a wrong body or path fails here.
      const script = `set -e\n${block.replaceAll(DOCUMENTED_BASE, url)}`;
      const result = await run('sh', ['-c', script], { cwd }).catch(
        (error: { stderr?: string; code?: number }) => ({
          stdout: '',
          stderr: `exit ${error.code}: ${error.stderr ?? ''}`,
        }),
      );
      expect({ block, stderr: result.stderr }).toEqual({ block, stderr: '' });
    }
  });
});
