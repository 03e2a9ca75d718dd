import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { createServer as createNetServer } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createLogger, createServer } from '@parley/server';
import { expect, it } from 'vitest';

const GUIDE = fileURLToPath(new URL('../../docs/http-guide.md', import.meta.url));

/** A port nobody listens on now. */
async function freePort(): Promise<number> {
  const server = createNetServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * The HTTP guide's receiver, run as written (on a free port instead of 4000, from this folder so that
 * `standardwebhooks` resolves): it verifies a live server's deliveries and refuses a forged one.
 */
it("the HTTP guide's receiver verifies a live server's reply.completed and refuses a forgery", async () => {
  const guide = await readFile(GUIDE, 'utf8');
  const example = /```js\n(\/\/ receiver\.mjs\n[\s\S]*?)```/.exec(guide)?.[1];
  expect(example).toBeDefined();
  const port = await freePort();
  const file = fileURLToPath(new URL(`./receiver-${randomUUID()}.mjs`, import.meta.url));
  await writeFile(file, example!.replace('listen(4000', `listen(${port}`));

  const server = createServer({
    port: 0,
    env: {},
    logger: createLogger('silent'),
    database: { kind: 'pglite', dataDir: 'memory' },
    webhooks: { privateTargets: ['127.0.0.1'], pollMs: 50 },
  });
  const { url } = await server.start();
  let receiver: ReturnType<typeof spawn> | undefined;
  try {
    const created = await fetch(`${url}/api/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        url: `http://127.0.0.1:${port}/webhooks`,
        events: ['reply.completed'],
      }),
    });
    const { secret } = ((await created.json()) as { data: { secret: string } }).data;
    receiver = spawn(process.execPath, [file], {
      env: { PATH: process.env.PATH ?? '', WEBHOOK_SECRET: secret },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const printed: string[] = [];
    createInterface({ input: receiver.stdout! }).on('line', (line) => printed.push(line));
    await expect
      .poll(
        () =>
          fetch(`http://127.0.0.1:${port}/webhooks`, { method: 'POST', body: '{}' })
            .then((response) => response.status)
            .catch(() => 0),
        { timeout: 20_000 },
      )
      .toBe(400); // Up, and a request without a valid signature is refused.

    const channelId = randomUUID();
    const answer = await fetch(`${url}/api/messaging/channels/${channelId}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'Hello', entityId: 'user-1', mode: 'sync' }),
    });
    const { agentResponse } = (await answer.json()) as { agentResponse: { text: string } };
    await expect.poll(() => printed.length, { timeout: 30_000 }).toBe(1);
    const [type, data] = [
      printed[0]!.split(' ')[0],
      printed[0]!.slice(printed[0]!.indexOf(' ') + 1),
    ];
    expect(type).toBe('reply.completed');
    const event = JSON.parse(data) as {
      channelId: string;
      reply: { content: string };
      message: { content: string };
    };
    expect(event).toMatchObject({
      channelId,
      reply: { content: agentResponse.text },
      message: { content: 'Hello' },
    });
  } finally {
    receiver?.kill();
    await server.stop();
    await rm(file, { force: true });
  }
}, 120_000);
