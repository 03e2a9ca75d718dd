import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { startNode } from './start-node';

const LOOPS = 16;

/**
 * kill -9 under load: every message the server acknowledged (201) is there after a restart, and a client that
 * retries every request it sent, acknowledged or not, with the same Idempotency-Key stores nothing twice.
 */
it('loses no acknowledged message across kill -9, and a retry with the same key stores nothing twice', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'parley-kill-'));
  try {
    let node = await startNode(dataDir);
    const channels = Array.from({ length: LOOPS }, () => randomUUID());
    const sent: { key: string; channelId: string }[] = [];
    const acknowledged = new Set<string>();
    let crashed = false;
    const submit = (url: string, key: string, channelId: string) =>
      fetch(`${url}/api/messaging/submit`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify({ channel_id: channelId, author_id: 'loader', content: key }),
      });
    const loops = channels.map(async (channelId) => {
      while (!crashed) {
        const key = randomUUID();
        sent.push({ key, channelId });
        try {
          const response = await submit(node.url, key, channelId);
          if (response.status === 201) acknowledged.add(key);
        } catch {
          return; // The server is gone.
        }
      }
    });
    await expect.poll(() => acknowledged.size, { timeout: 30_000 }).toBeGreaterThan(300);
    crashed = true;
    await node.crash();
    await Promise.all(loops);

    node = await startNode(dataDir);
    try {
      for (const { key, channelId } of sent) {
        expect((await submit(node.url, key, channelId)).status).toBe(201);
      }
      const stored = new Map<string, number>();
      for (const channelId of channels) {
        let before = '';
        for (;;) {
          const response = await fetch(
            `${node.url}/api/messaging/channels/${channelId}/messages?limit=200${before}`,
          );
          const page = (
            (await response.json()) as { data: { messages: { id: string; content: string }[] } }
          ).data.messages;
          if (page.length === 0) break;
          for (const message of page)
            stored.set(message.content, (stored.get(message.content) ?? 0) + 1);
          before = `&before=${page.at(-1)!.id}`;
        }
      }
      for (const key of acknowledged) expect(stored.get(key), `acknowledged ${key}`).toBe(1);
      expect([...stored.values()].every((count) => count === 1)).toBe(true);
      expect(stored.size).toBe(sent.length);
    } finally {
      await node.stop();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}, 180_000);
