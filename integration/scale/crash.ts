import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { ClusterNode } from './cluster';
import { joinAs } from './clients';
import { history, schedule, submit, syncReply } from './rest';

/**
 * Load on `victim` while it is killed with SIGKILL: every message it acknowledged is stored, and the messages it
 * had scheduled are posted by the survivors, once each. The survivors keep serving.
 */
export async function crashMidLoad(victim: ClusterNode, survivors: ClusterNode[]): Promise<void> {
  const roomId = randomUUID();
  const watchers = await Promise.all(
    survivors.map((node, index) => joinAs(node.url, 'websocket', roomId, `watcher-${index}`)),
  );
  try {
    const sendAt = new Date(Date.now() + 3000);
    const scheduled = await Promise.all(
      [0, 1, 2].map((index) => schedule(victim.url, roomId, `scheduled ${index}`, sendAt)),
    );

    const acknowledged: string[] = [];
    let killed = false;
    const load = Array.from({ length: 6 }, async (_, worker) => {
      for (let index = 0; !killed; index += 1) {
        try {
          acknowledged.push(await submit(victim.url, roomId, `load ${worker}.${index}`));
        } catch {
          return; // the process is gone: an unacknowledged message may or may not be stored
        }
      }
    });
    // Kill mid-load, once the load is well under way, and normally before the scheduled messages are due (on a
    // slow machine the victim may post some itself first: each must still be posted once).
    await new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (acknowledged.length >= 40 || Date.now() >= sendAt.getTime() - 1000) {
          clearInterval(check);
          resolve();
        }
      }, 10);
    });
    await victim.stop('SIGKILL');
    killed = true;
    await Promise.all(load);

    for (const watcher of watchers) {
      for (const id of scheduled) {
        await watcher.broadcast((broadcast) => broadcast.id === id, 'a scheduled message');
      }
    }
    const stored = await history(survivors[0]!.url, roomId);
    const storedIds = stored.map((message) => message.id);
    expect(acknowledged.filter((id) => !storedIds.includes(id))).toEqual([]);
    for (const id of scheduled) expect(storedIds.filter((stored) => stored === id)).toHaveLength(1);
    for (const watcher of watchers) {
      for (const id of scheduled) {
        expect(watcher.broadcasts.filter((broadcast) => broadcast.id === id)).toHaveLength(1);
      }
    }

    // The survivors still answer, in a channel of their own and in this one.
    for (const node of survivors) {
      expect((await syncReply(node.url, randomUUID(), 'still there?')).length).toBeGreaterThan(0);
    }
  } finally {
    for (const watcher of watchers) watcher.close();
  }
}
