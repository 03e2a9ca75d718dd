import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ClusterNode,
  createRunDatabase,
  skipWithoutPostgres,
  startCluster,
} from '../scale/cluster';
import { postToChannel } from '../scale/rest';
import { verifiedEvent } from '../support/verify-webhook';

const unavailable = await skipWithoutPostgres('the webhook cluster test');

/**
 * Three server processes on one PostgreSQL database, configured by settings alone, each polling for due
 * deliveries: every event is delivered once (each process claims a delivery only while no other holds it),
 * through a receiver that refuses every first attempt, and each is verified by the standardwebhooks library.
 */
describe.skipIf(unavailable)('outbound webhooks from three processes', () => {
  let nodes: ClusterNode[] = [];
  let dispose: () => Promise<void> = () => Promise.resolve();
  const received: { headers: IncomingMessage['headers']; body: string; status: number }[] = [];
  const attempts = new Map<string, number>();
  const receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const id = String(request.headers['webhook-id']);
      const attempt = (attempts.get(id) ?? 0) + 1;
      attempts.set(id, attempt);
      const status = attempt === 1 ? 503 : 204;
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString(), status });
      response.writeHead(status).end();
    });
  });

  beforeAll(async () => {
    receiver.listen(0, '127.0.0.1');
    await once(receiver, 'listening');
    const database = await createRunDatabase();
    dispose = () => database.dispose();
    nodes = await startCluster(3, {
      DATABASE_URL: database.url,
      WEBHOOK_PRIVATE_TARGETS: '127.0.0.1',
      WEBHOOK_RETRY_DELAYS: '100ms,100ms,100ms',
    });
  });

  afterAll(async () => {
    await Promise.all(nodes.map((node) => node.stop()));
    receiver.close();
    await dispose();
  });

  it('delivers each reply.completed once, whichever process stored it', async () => {
    const port = (receiver.address() as AddressInfo).port;
    const created = await fetch(`${nodes[0]!.url}/api/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: `http://127.0.0.1:${port}/in`, events: ['reply.completed'] }),
    });
    expect(created.status).toBe(201);
    const { secret } = ((await created.json()) as { data: { secret: string } }).data;

    const channels = [randomUUID(), randomUUID(), randomUUID()];
    const posted = await Promise.all(
      Array.from({ length: 15 }, (_, i) =>
        postToChannel(nodes[i % 3]!.url, channels[i % 3]!, `question ${i}`),
      ),
    );

    await expect
      .poll(() => received.filter((request) => request.status === 204).length, {
        timeout: 60_000,
      })
      .toBeGreaterThanOrEqual(15);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const delivered = received.filter((request) => request.status === 204);
    expect(delivered).toHaveLength(15);
    expect(received).toHaveLength(30);
    const answered = delivered.map(
      (request) =>
        verifiedEvent<{ data: { message: { id: string } } }>(secret, request).data.message.id,
    );
    expect(answered.sort()).toEqual([...posted].sort());
  }, 120_000);
});
