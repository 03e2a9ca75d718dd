import { describe, expect, it } from 'vitest';
import { deferred } from '../../test/scripted-model';
import { BatchWriter } from './batch-writer';

describe('BatchWriter', () => {
  it('groups the writes that arrive while a batch is being written', async () => {
    const batches: number[][] = [];
    const gates = [deferred(), deferred()];
    const writer = new BatchWriter<number>(async (items) => {
      batches.push(items);
      await gates[batches.length - 1]?.promise;
    });
    const first = writer.write(0);
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    // While batch [0] is in flight, requests arrive in separate turns of the event loop.
    const rest: Promise<void>[] = [];
    for (let i = 1; i <= 10; i++) {
      rest.push(writer.write(i));
      await new Promise((resolve) => setImmediate(resolve));
    }
    gates[0]!.resolve();
    gates[1]!.resolve();
    await Promise.all([first, ...rest]);
    expect(batches).toEqual([[0], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]]);
  });

  it('fails only the item that fails, and keeps the order of the others', async () => {
    const written: number[] = [];
    const writer = new BatchWriter<number>((items) => {
      if (items.includes(2)) return Promise.reject(new Error('bad item'));
      written.push(...items);
      return Promise.resolve();
    });
    const results = await Promise.allSettled([1, 2, 3].map((n) => writer.write(n)));
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(written).toEqual([1, 3]);
  });

  it('caps a batch at maxBatch items', async () => {
    const sizes: number[] = [];
    const writer = new BatchWriter<number>((items) => {
      sizes.push(items.length);
      return Promise.resolve();
    }, 4);
    await Promise.all(Array.from({ length: 10 }, (_, i) => writer.write(i)));
    expect(sizes).toEqual([4, 4, 2]);
  });
});

describe('BatchWriter against a database that stops answering', () => {
  it('fails every item of a batch the database cannot take at once, without trying them one by one', async () => {
    let calls = 0;
    const down = Object.assign(new Error('connection lost'), { code: 'ECONNRESET' });
    const writer = new BatchWriter<number>(
      () => {
        calls += 1;
        return Promise.reject(down);
      },
      500,
      undefined,
      { failsAll: (error) => error === down },
    );
    const results = await Promise.allSettled([1, 2, 3, 4].map((n) => writer.write(n)));
    expect(results.map((result) => result.status)).toEqual(Array(4).fill('rejected'));
    expect(calls).toBe(1);
  });

  it('rejects a writer at its deadline, queued or in flight, and never writes one that gave up queued', async () => {
    const written: number[][] = [];
    const hung = deferred();
    const writer = new BatchWriter<number>(
      async (items) => {
        written.push(items);
        if (items.includes(0)) await hung.promise; // the first batch never comes back
      },
      500,
      undefined,
      { deadlineMs: 50, deadlineError: () => new Error('deadline') },
    );
    const first = writer.write(0);
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    const queued = writer.write(1);
    await expect(first).rejects.toThrow('deadline');
    await expect(queued).rejects.toThrow('deadline');
    // The hung batch comes back late: the queued writer had given up, so it is not written after all.
    hung.resolve();
    await writer.idle();
    expect(written).toEqual([[0]]);
    // And the writer still works.
    await writer.write(2);
    expect(written).toEqual([[0], [2]]);
  });
});
