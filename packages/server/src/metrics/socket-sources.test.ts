import { describe, expect, it } from 'vitest';
import { socketSources } from './socket-sources';

describe('socketSources', () => {
  it('counts sockets, and rooms other than each socket’s own', () => {
    const sids = new Map([
      ['a', new Set(['a', 'channel-1'])],
      ['b', new Set(['b', 'channel-1', 'channel-2'])],
    ]);
    const rooms = new Map([
      ['a', new Set(['a'])],
      ['b', new Set(['b'])],
      ['channel-1', new Set(['a', 'b'])],
      ['channel-2', new Set(['b'])],
    ]);
    const sources = socketSources({
      engine: { clientsCount: 2 },
      of: () => ({ adapter: { rooms, sids } }),
    });
    expect(sources.sockets?.()).toBe(2);
    expect(sources.rooms?.()).toBe(2);
  });
});
