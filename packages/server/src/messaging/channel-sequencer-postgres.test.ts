import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createPostgresDatabase, postgresUnavailableReason } from '../../test/databases';
import { createLogger } from '../logger';
import { PostgresChannelSequencer } from './channel-sequencer-postgres';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A task that runs until `finish()` is called, and tells when it has started. */
function gate() {
  let finish!: () => void;
  let started!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const running = new Promise<void>((resolve) => (started = resolve));
  return {
    finish,
    running,
    task: async () => {
      started();
      await finished;
    },
  };
}

/** A shared database and `count` sequencers on it, as if in as many processes. */
async function setUp(count: number, leaseMs?: number, pollMs = 200) {
  const database = await createPostgresDatabase();
  cleanups.push(() => database.dispose());
  if (database.location.kind !== 'postgres') throw new Error('expected PostgreSQL');
  const connectionString = database.location.url;
  const sequencers = Array.from({ length: count }, () => {
    const sequencer = new PostgresChannelSequencer({
      connectionString,
      logger: createLogger('silent'),
      leaseMs,
      pollMs,
    });
    cleanups.push(() => sequencer.close());
    return sequencer;
  });
  await Promise.all(sequencers.map((sequencer) => sequencer.start()));
  const admin = new pg.Client({ connectionString });
  await admin.connect();
  cleanups.push(() => admin.end());
  /** Resolves once `key` has `count` tickets: tickets are taken on arrival, before their turn. */
  async function ticketsTaken(key: string, expected: number): Promise<void> {
    for (;;) {
      const { rows } = await admin.query<{ count: string }>(
        'SELECT count(*) FROM parley_channel_tickets WHERE channel_id = $1',
        [key],
      );
      if (Number(rows[0]?.count) >= expected) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  return { sequencers, admin, ticketsTaken };
}

describe.skipIf(await postgresUnavailableReason())('PostgresChannelSequencer', () => {
  it('runs one channel one task at a time in arrival order across processes', async () => {
    const { sequencers, ticketsTaken } = await setUp(2);
    const [a, b] = sequencers as [PostgresChannelSequencer, PostgresChannelSequencer];
    const order: string[] = [];
    let running = 0;
    let overlapped = false;
    const step = (name: string) => async () => {
      if (running > 0) overlapped = true;
      running += 1;
      order.push(`start ${name}`);
      await new Promise((resolve) => setImmediate(resolve));
      order.push(`end ${name}`);
      running -= 1;
    };
    const first = gate();
    const results: Promise<unknown>[] = [a.run('channel', first.task)];
    await first.running;
    // Alternate between the two processes, each message arriving after the previous one.
    const names = ['b1', 'a2', 'b3', 'a4', 'b5'];
    for (const [index, name] of names.entries()) {
      const sequencer = index % 2 === 0 ? b : a;
      results.push(sequencer.run('channel', step(name)));
      await ticketsTaken('channel', index + 2);
    }
    first.finish();
    await Promise.all(results);

    expect(overlapped).toBe(false);
    expect(order).toEqual(names.flatMap((name) => [`start ${name}`, `end ${name}`]));
  });

  it('keeps one order when both processes release many tasks of a channel together', async () => {
    // No poll to fall back on: a waiter of the other process must be woken by its notification.
    const { sequencers } = await setUp(2, undefined, 600_000);
    const [a, b] = sequencers as [PostgresChannelSequencer, PostgresChannelSequencer];
    let running = 0;
    let overlapped = false;
    const started: string[] = [];
    const task = (name: string) => async () => {
      if (running > 0) overlapped = true;
      running += 1;
      started.push(name);
      await new Promise((resolve) => setTimeout(resolve, 2));
      running -= 1;
    };
    const names = Array.from({ length: 40 }, (_, index) => `${index % 2 ? 'a' : 'b'}${index}`);
    await Promise.all(
      names.map((name) => (name.startsWith('a') ? a : b).run('channel', task(name))),
    );
    expect(overlapped).toBe(false);
    expect([...started].sort()).toEqual([...names].sort());
    // Each process keeps its own arrival order.
    for (const prefix of ['a', 'b']) {
      const own = started.filter((name) => name.startsWith(prefix));
      expect(own).toEqual(names.filter((name) => name.startsWith(prefix)));
    }
  });

  it('keeps the tickets out of the write-ahead log, also for a table an earlier version made', async () => {
    const database = await createPostgresDatabase();
    cleanups.push(() => database.dispose());
    if (database.location.kind !== 'postgres') throw new Error('expected PostgreSQL');
    const admin = new pg.Client({ connectionString: database.location.url });
    await admin.connect();
    cleanups.push(() => admin.end());
    // The logged table an earlier version created, with a ticket in it.
    await admin.query(`CREATE TABLE parley_channel_tickets (
      id bigserial PRIMARY KEY, channel_id text NOT NULL, holder uuid NOT NULL,
      lease_until timestamptz NOT NULL)`);
    const sequencer = new PostgresChannelSequencer({
      connectionString: database.location.url,
      logger: createLogger('silent'),
    });
    cleanups.push(() => sequencer.close());
    await expect(sequencer.run('channel', () => Promise.resolve('ran'))).resolves.toBe('ran');
    const { rows } = await admin.query<{ relpersistence: string }>(
      "SELECT relpersistence FROM pg_class WHERE relname = 'parley_channel_tickets'",
    );
    expect(rows[0]?.relpersistence).toBe('u');
  });

  it('runs different channels in parallel and holds no connection while a task runs', async () => {
    const { sequencers, admin } = await setUp(2);
    const [a, b] = sequencers as [PostgresChannelSequencer, PostgresChannelSequencer];
    const slow = gate();
    const slowRun = a.run('channel-x', slow.task);
    await slow.running;
    // Another channel on the other process completes while channel-x is still running.
    await expect(b.run('channel-y', () => Promise.resolve('y'))).resolves.toBe('y');
    const { rows } = await admin.query<{ held: string }>(
      `SELECT count(*) AS held FROM pg_stat_activity
       WHERE datname = current_database() AND pid <> pg_backend_pid()
         AND state IN ('active', 'idle in transaction') AND query NOT LIKE 'LISTEN%'`,
    );
    const locks = await admin.query<{ count: string }>(
      "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'",
    );
    slow.finish();
    await slowRun;
    expect(Number(rows[0]?.held)).toBe(0);
    expect(Number(locks.rows[0]?.count)).toBe(0);
  });

  it('lets a failed task go and runs the next', async () => {
    const { sequencers } = await setUp(2);
    const [a, b] = sequencers as [PostgresChannelSequencer, PostgresChannelSequencer];
    await expect(a.run('channel', () => Promise.reject(new Error('model failed')))).rejects.toThrow(
      'model failed',
    );
    await expect(b.run('channel', () => Promise.resolve('next'))).resolves.toBe('next');
  });

  it('does not let a crashed process block a channel beyond its lease', async () => {
    const { sequencers, admin } = await setUp(1, 600);
    const [survivor] = sequencers as [PostgresChannelSequencer];
    // What a process that died while holding a ticket leaves behind: a ticket nobody renews.
    await admin.query(
      `INSERT INTO parley_channel_tickets (channel_id, holder, lease_until)
       VALUES ('channel', gen_random_uuid(), now() + interval '600 milliseconds')`,
    );
    await expect(survivor.run('channel', () => Promise.resolve('went ahead'))).resolves.toBe(
      'went ahead',
    );
    const { rows } = await admin.query<{ count: string }>(
      'SELECT count(*) FROM parley_channel_tickets',
    );
    expect(Number(rows[0]?.count)).toBe(0); // the expired ticket is cleared away
  });

  it('gives up its tickets when closed, so a stopping process does not hold its channels', async () => {
    const { sequencers, ticketsTaken } = await setUp(2); // default lease: 30 s, longer than this test may take
    const [stopping, other] = sequencers as [PostgresChannelSequencer, PostgresChannelSequencer];
    const stuck = gate();
    void stopping.run('channel', stuck.task).catch(() => undefined);
    await stuck.running;
    const next = other.run('channel', () => Promise.resolve('next'));
    await ticketsTaken('channel', 2);
    await stopping.close();
    await expect(next).resolves.toBe('next');
    stuck.finish();
  });
});
