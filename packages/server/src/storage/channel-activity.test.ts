import { describe, expect, it } from 'vitest';
import { ChannelActivity, type ChannelActivityRow } from './channel-activity';

function tracker() {
  let now = 0;
  const writes: ChannelActivityRow[][] = [];
  const activity = new ChannelActivity({
    write: (rows) => {
      writes.push([...rows]);
      return Promise.resolve();
    },
    onError: (error) => {
      throw error;
    },
    intervalMs: 1000,
    now: () => now,
  });
  return { activity, writes, advance: (ms: number) => (now += ms) };
}

const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second));

describe('ChannelActivity', () => {
  it('writes a channel with its batch at most once per interval and holds the newest time between', async () => {
    const { activity, writes, advance } = tracker();
    expect(activity.due(new Map([['a', at(1)]]))).toEqual([['a', at(1)]]);
    advance(10);
    expect(activity.due(new Map([['a', at(3)]]))).toEqual([]);
    expect(activity.due(new Map([['a', at(2)]]))).toEqual([]);
    // Another channel is not held back by the first.
    expect(activity.due(new Map([['b', at(2)]]))).toEqual([['b', at(2)]]);
    await activity.settle();
    expect(writes).toEqual([[['a', at(3)]]]);
    // After the interval the batch writes it again, with the newest time held or its own.
    advance(1000);
    expect(activity.due(new Map([['b', at(4)]]))).toEqual([['b', at(4)]]);
    await activity.settle();
    expect(writes).toHaveLength(1);
  });

  it('writes the held times on its own after the interval', async () => {
    let written: (rows: readonly ChannelActivityRow[]) => void = () => {};
    const done = new Promise<readonly ChannelActivityRow[]>((resolve) => (written = resolve));
    const activity = new ChannelActivity({
      write: (rows) => {
        written(rows);
        return Promise.resolve();
      },
      onError: () => {},
      intervalMs: 20,
    });
    activity.due(new Map([['a', at(1)]]));
    activity.due(new Map([['a', at(2)]]));
    expect(await done).toEqual([['a', at(2)]]);
  });

  it('forgets what it holds for a deleted channel and reports a failed write without rejecting', async () => {
    const errors: unknown[] = [];
    const activity = new ChannelActivity({
      write: () => Promise.reject(new Error('database gone')),
      onError: (error) => errors.push(error),
      intervalMs: 60_000,
    });
    activity.due(new Map([['a', at(1)]]));
    activity.due(new Map([['a', at(2)]]));
    activity.forget('a');
    await activity.settle();
    expect(errors).toEqual([]);
    activity.due(new Map([['b', at(1)]]));
    activity.due(new Map([['b', at(2)]]));
    await expect(activity.settle()).resolves.toBeUndefined();
    expect(errors).toHaveLength(1);
  });
});
