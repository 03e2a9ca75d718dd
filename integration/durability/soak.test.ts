import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { SOCKET_MESSAGE_TYPE } from '@parley/core';
import { io } from 'socket.io-client';
import { expect, it } from 'vitest';
import { startNode } from './start-node';

const SOAK_SECONDS = Number(process.env.SOAK_SECONDS ?? 60);
const SETTLE_SECONDS = 15;

/**
 * A mixed soak: submits, `sync` and `stream` conversations and socket clients chatting in rooms, for
 * SOAK_SECONDS (60 by default), against the default embedded set-up in its own process. The server reports its
 * memory and event-loop delay every second; the test prints them, and checks that nothing failed and that
 * memory, after the load, comes back near where it was once warmed up.
 */
it(
  `soaks ${SOAK_SECONDS} s of mixed load and comes back near its baseline`,
  async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'parley-soak-'));
    const node = await startNode(dataDir, { reportMs: 1000 });
    const failures: string[] = [];
    const sockets: ReturnType<typeof io>[] = [];
    try {
      const post = (path: string, body: unknown) =>
        fetch(`${node.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const check = (what: string) => (response: Response) => {
        if (response.status >= 300) failures.push(`${what}: ${response.status}`);
        return response.text();
      };
      let running = true;
      const loop = async (step: () => Promise<unknown>) => {
        while (running) await step().catch((error: unknown) => failures.push(String(error)));
      };
      const conversation = (mode: 'sync' | 'stream') => {
        const channelId = randomUUID();
        return () =>
          post(`/api/messaging/channels/${channelId}/messages`, {
            text: 'I keep thinking about my work',
            entityId: 'soaker',
            mode,
          }).then(check(mode));
      };
      const submit = () =>
        post('/api/messaging/submit', {
          channel_id: randomUUID(),
          author_id: 'soaker',
          content: 'status update',
        }).then(check('submit'));
      const chat = async () => {
        const roomId = randomUUID();
        const socket = io(node.url, {
          transports: ['websocket'],
          forceNew: true,
          reconnection: false,
        });
        sockets.push(socket);
        await new Promise((resolve) => socket.once('connection_established', resolve));
        await socket.emitWithAck('message', {
          type: SOCKET_MESSAGE_TYPE.ROOM_JOINING,
          payload: { roomId, entityId: 'chatter' },
        });
        return async () => {
          const complete = new Promise((resolve) => socket.once('messageComplete', resolve));
          await socket.emitWithAck('message', {
            type: SOCKET_MESSAGE_TYPE.SEND_MESSAGE,
            payload: { roomId, senderId: 'chatter', senderName: 'Chatter', message: 'Hello again' },
          });
          await complete;
          await new Promise((resolve) => setTimeout(resolve, 100));
        };
      };

      // Warm up, then take the baseline.
      await Promise.all([conversation('sync')(), submit(), (await chat())()]);
      await new Promise((resolve) => setTimeout(resolve, 3000));
      const baseline = node.vitals.at(-1)!;

      const steps = [
        ...Array.from({ length: 4 }, () => conversation('sync')),
        ...Array.from({ length: 4 }, () => conversation('stream')),
        ...Array.from({ length: 4 }, () => submit),
        ...(await Promise.all(Array.from({ length: 8 }, chat))),
      ];
      const load = steps.map((step) => loop(step));
      await new Promise((resolve) => setTimeout(resolve, SOAK_SECONDS * 1000));
      running = false;
      await Promise.all(load);
      const underLoad = node.vitals.slice(-SOAK_SECONDS);
      await new Promise((resolve) => setTimeout(resolve, SETTLE_SECONDS * 1000));
      const settled = node.vitals.at(-1)!;

      const peak = Math.max(...underLoad.map((vitals) => vitals.rssMb));
      const worstDelay = Math.max(...underLoad.map((vitals) => vitals.delayP99Ms));
      process.stdout.write(
        `soak ${SOAK_SECONDS} s: RSS baseline ${baseline.rssMb.toFixed(0)} MB, peak ${peak.toFixed(0)} MB, ` +
          `settled ${settled.rssMb.toFixed(0)} MB; event-loop delay p99 worst ${worstDelay.toFixed(1)} ms\n` +
          underLoad
            .map(
              (v, second) =>
                `  ${second + 1}s rss ${v.rssMb.toFixed(0)} MB delay p99 ${v.delayP99Ms.toFixed(1)} ms`,
            )
            .join('\n') +
          '\n',
      );
      expect(failures).toEqual([]);
      // Near the baseline: within a quarter, plus 40 MB for caches that a load fills once (bounded by design).
      expect(settled.rssMb).toBeLessThan(baseline.rssMb * 1.25 + 40);
    } finally {
      for (const socket of sockets) socket.disconnect();
      await node.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  },
  (SOAK_SECONDS + SETTLE_SECONDS + 120) * 1000,
);
