import type { StoredMessage } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { deferred } from '../../test/scripted-model';
import { RecentMessagesCache } from './recent-messages-cache';

const message = (channel: string, id: string): StoredMessage => ({
  id,
  channel_id: channel,
  server_id: 's',
  author_id: 'a',
  author_name: 'A',
  content: id,
  source_type: 'api',
  raw_message: null,
  metadata: {},
  in_reply_to: null,
  created_at: new Date(0).toISOString(),
});
const ids = (messages: StoredMessage[]) => messages.map((m) => m.id);

describe('RecentMessagesCache', () => {
  it('loads a channel once, then serves it from memory with new messages appended', async () => {
    const cache = new RecentMessagesCache(3);
    let loads = 0;
    const load = () => {
      loads += 1;
      return Promise.resolve([message('c', '1'), message('c', '2')]);
    };
    expect(ids(await cache.recent('c', 3, load))).toEqual(['1', '2']);
    cache.add(message('c', '3'));
    cache.add(message('c', '4'));
    expect(ids(await cache.recent('c', 3, load))).toEqual(['2', '3', '4']);
    expect(ids(await cache.recent('c', 2, load))).toEqual(['3', '4']);
    expect(loads).toBe(1);
  });

  it('finds a message of a window it holds, never loading one', async () => {
    const cache = new RecentMessagesCache(2);
    expect(cache.find('c', '1')).toBeUndefined();
    await cache.recent('c', 2, () => Promise.resolve([message('c', '1')]));
    cache.add(message('c', '2'));
    expect(cache.find('c', '1')?.id).toBe('1');
    cache.add(message('c', '3'));
    // Out of the window: the caller reads the database.
    expect(cache.find('c', '1')).toBeUndefined();
    expect(cache.find('d', '3')).toBeUndefined();
    cache.forget('c');
    expect(cache.find('c', '3')).toBeUndefined();
  });

  it('keeps a message written while the history was loading, once', async () => {
    const cache = new RecentMessagesCache(10);
    const gate = deferred();
    const loading = cache.recent('c', 10, async () => {
      await gate.promise;
      // The load saw message 2 as well as the write did: it must not appear twice.
      return [message('c', '1'), message('c', '2')];
    });
    cache.add(message('c', '2'));
    cache.add(message('c', '3'));
    gate.resolve();
    expect(ids(await loading)).toEqual(['1', '2', '3']);
  });

  it('ignores messages of channels it does not hold, and forgets the least recently used channel', async () => {
    const cache = new RecentMessagesCache(5, 2);
    cache.add(message('x', 'ignored'));
    const empty = () => Promise.resolve([] as StoredMessage[]);
    await cache.recent('a', 5, empty);
    await cache.recent('b', 5, empty);
    await cache.recent('a', 5, empty);
    await cache.recent('c', 5, empty);
    let reloaded = false;
    await cache.recent('b', 5, () => {
      reloaded = true;
      return Promise.resolve([]);
    });
    expect(reloaded).toBe(true);
    expect(ids(await cache.recent('x', 5, empty))).toEqual([]);
  });
});
