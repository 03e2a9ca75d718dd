import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { startNode } from './start-node';
import { verifiedEvent } from '../support/verify-webhook';

const REPLIES = 20;

/**
 * kill -9 between the reply and its delivery: the receiver holds every attempt open, so no delivery can
 * succeed before the crash; after a restart each stored reply's reply.completed arrives once, verified by the
 * standardwebhooks library. Deliveries are written in the transaction of the reply itself, so there is no
 * moment at which a stored reply has no delivery to make.
 */
it('loses no reply.completed across kill -9, and delivers each once after the restart', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'parley-webhook-kill-'));
  let accepting = false;
  const held: ServerResponse[] = [];
  const accepted: { headers: IncomingMessage['headers']; body: string }[] = [];
  const receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (!accepting) {
        held.push(response); // Never answered: the attempt is under way when the server dies.
        return;
      }
      accepted.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(204).end();
    });
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const env = {
    WEBHOOKS: JSON.stringify({
      retryDelaysMs: Array.from({ length: 20 }, () => 200),
      privateTargets: ['127.0.0.1'],
      timeoutMs: 1000,
      pollMs: 50,
    }),
  };
  try {
    let node = await startNode(dataDir, { env });
    const created = await fetch(`${node.url}/api/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiverUrl, events: ['reply.completed'] }),
    });
    expect(created.status).toBe(201);
    const { secret } = ((await created.json()) as { data: { secret: string } }).data;

    const channelId = randomUUID();
    const answers = await Promise.all(
      Array.from({ length: REPLIES }, (_, i) =>
        fetch(`${node.url}/api/messaging/channels/${channelId}/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ text: `message ${i}`, entityId: 'user-1', mode: 'sync' }),
        }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
    // At least one attempt is held open by the receiver when the process dies.
    await expect.poll(() => held.length, { timeout: 30_000 }).toBeGreaterThan(0);
    await node.crash();
    for (const response of held) response.destroy();
    accepting = true;

    node = await startNode(dataDir, { env });
    try {
      const history = await fetch(
        `${node.url}/api/messaging/channels/${channelId}/messages?limit=100`,
      );
      const stored = (
        (await history.json()) as { data: { messages: { id: string; in_reply_to: string }[] } }
      ).data.messages;
      const replies = stored.filter((message) => message.in_reply_to !== null);
      expect(replies).toHaveLength(REPLIES);

      await expect.poll(() => accepted.length, { timeout: 60_000 }).toBeGreaterThanOrEqual(REPLIES);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const delivered = accepted.map((request) =>
        verifiedEvent<{ data: { reply: { id: string } } }>(secret, request),
      );
      expect(delivered.map((event) => event.data.reply.id).sort()).toEqual(
        replies.map((reply) => reply.id).sort(),
      );
    } finally {
      await node.stop();
    }
  } finally {
    receiver.closeAllConnections();
    receiver.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}, 180_000);
