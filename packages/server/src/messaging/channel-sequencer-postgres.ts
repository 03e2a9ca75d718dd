import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Logger } from 'pino';
import {
  DEFAULT_QUERY_TIMEOUT_MS,
  endPool,
  guardPool,
  poolDeadlines,
} from '../storage/pg-pool-guard';
import type { ChannelSequencer } from './channel-sequencer';
import { KeyedQueue } from './keyed-queue';
import { DEFAULTS } from '../defaults';

/** Options of {@link PostgresChannelSequencer}. */
export interface PostgresChannelSequencerOptions {
  /** The PostgreSQL database the processes share. */
  connectionString: string;
  logger: Logger;
  /**
   * How long a ticket stays valid without its process renewing it (default 30000 ms): after a crash, the
   * channel waits at most this long before the tickets behind the dead process's go ahead.
   */
  leaseMs?: number;
  /** Connections of its own (default 4): one listens, the others take, check and release tickets. */
  poolSize?: number;
  /** How often a waiting ticket looks again without being notified, for missed notifications (default 1000 ms). */
  pollMs?: number;
  /**
   * The query deadline (default 10000 ms, the `database` option's `queryTimeoutMs`): each of its queries, and a
   * turn's check failing on and on, gives up after it, so a reply (and a `sync` request waiting for it) fails
   * instead of waiting for a database that stopped answering.
   */
  queryTimeoutMs?: number;
}

const TABLE = 'parley_channel_tickets';
const NOTIFY_CHANNEL = 'parley_channel_ticket_done';
/** Serialises the table's creation across processes starting together. */
const SETUP_LOCK = 7_351_902_114;

/** Takes a ticket and says whether an earlier live ticket of its channel is ahead of it: one round trip. */
const TAKE = 'parley_take_channel_ticket';
/** Gives a ticket up and wakes the channel's next waiter, if there is one: one round trip. */
const RELEASE = 'parley_release_channel_ticket';

/**
 * One order per channel across processes, from a ticket table: a task takes a ticket when it arrives (tickets
 * are numbered by one sequence, so their order is arrival order), waits until no earlier live ticket of its
 * channel remains, runs, and deletes its ticket with a NOTIFY that wakes the next. No connection is held while
 * a task runs or waits; one connection per process LISTENs. Each process renews the leases of its tickets
 * every third of the lease, so a crashed process blocks a channel for at most one lease.
 *
 * A reply costs two statements: taking the ticket also checks the turn, and releasing it notifies only when a
 * later ticket waits. The table is UNLOGGED (no WAL, no fsync per ticket): tickets only matter while their
 * processes run, and a database crash ends every connection anyway.
 */
export class PostgresChannelSequencer implements ChannelSequencer {
  readonly #pool: pg.Pool;
  readonly #logger: Logger;
  readonly #holder = randomUUID();
  readonly #leaseMs: number;
  readonly #pollMs: number;
  readonly #queryTimeoutMs: number;
  /** Wakes the tasks waiting on a channel. */
  readonly #waiters = new Map<string, Set<() => void>>();
  /** Per channel, the end of the last local ticket taken, so local tickets are taken in call order. */
  readonly #ticketTails = new Map<string, Promise<unknown>>();
  /** A process's own tasks of one channel follow each other locally; only the first waits on the database. */
  readonly #local = new KeyedQueue();
  #listener: pg.PoolClient | undefined;
  #releaseListener: (() => void) | undefined;
  #renewTimer: NodeJS.Timeout | undefined;
  #ready: Promise<void> | undefined;
  #closed = false;

  constructor(options: PostgresChannelSequencerOptions) {
    this.#logger = options.logger.child({ component: 'channel-sequencer' });
    this.#leaseMs = options.leaseMs ?? DEFAULTS.internals.sequencerLeaseMs;
    this.#pollMs = options.pollMs ?? DEFAULTS.internals.sequencerPollMs;
    this.#queryTimeoutMs = options.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
    this.#pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.poolSize ?? DEFAULTS.internals.sequencerPoolSize,
      // A database that is gone must fail calls, not hang them (a reply waits on its turn meanwhile).
      ...poolDeadlines(this.#queryTimeoutMs),
    });
    // Every connection, idle or checked out (the LISTEN one for good), survives its loss: the process must not.
    guardPool(this.#pool, (error) => this.#warn(error, 'sequencer connection lost'));
  }

  /** Creates the ticket table if needed and starts listening; `run` calls it on first use. */
  start(): Promise<void> {
    this.#ready ??= this.#setUp().catch((error: unknown) => {
      this.#ready = undefined; // the next run tries again
      throw error;
    });
    return this.#ready;
  }

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    await this.start();
    const ticket = this.#takeTicket(key);
    return this.#local.run(key, async () => {
      const { id, blocked } = await ticket;
      try {
        // Taking the ticket checked the turn; an earlier local task has released its ticket since, so only a
        // ticket that was blocked then is checked again.
        if (blocked) await this.#waitForTurn(key, id);
        return await task();
      } finally {
        await this.#finish(key, id);
      }
    });
  }

  /**
   * Stops listening and renewing, and gives up this process's tickets so that their channels go on at once
   * (after a crash they expire with their lease instead). Call it once replies have stopped. Safe to call twice.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#renewTimer);
    for (const wakers of this.#waiters.values()) for (const wake of wakers) wake();
    await this.#ready?.catch(() => undefined);
    await this.#pool
      .query(
        `WITH released AS (DELETE FROM ${TABLE} WHERE holder = $1 RETURNING channel_id)
         SELECT pg_notify('${NOTIFY_CHANNEL}', channel_id) FROM (SELECT DISTINCT channel_id FROM released) AS channels`,
        [this.#holder],
      )
      .catch((error: unknown) => this.#warn(error, 'sequencer could not release its tickets'));
    this.#releaseListener?.();
    // After an outage a query may still hold a connection until its timeout: do not wait for it longer.
    await endPool(this.#pool, 5000);
  }

  async #setUp(): Promise<void> {
    const client = await this.#pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1)', [SETUP_LOCK]);
      await client.query(`CREATE UNLOGGED TABLE IF NOT EXISTS ${TABLE} (
        id bigserial PRIMARY KEY,
        channel_id text NOT NULL,
        holder uuid NOT NULL,
        lease_until timestamptz NOT NULL
      )`);
      // A table made by an earlier version is logged: every ticket then cost a WAL flush.
      const { rows } = await client.query<{ persistence: string }>(
        `SELECT relpersistence AS persistence FROM pg_class WHERE oid = '${TABLE}'::regclass`,
      );
      if (rows[0]?.persistence === 'p') await client.query(`ALTER TABLE ${TABLE} SET UNLOGGED`);
      await client.query(
        `CREATE INDEX IF NOT EXISTS ${TABLE}_channel ON ${TABLE} (channel_id, id)`,
      );
      await client.query(`CREATE INDEX IF NOT EXISTS ${TABLE}_holder ON ${TABLE} (holder)`);
      // PL/pgSQL because each of its statements reads a fresh snapshot: after the channel's lock is taken, the
      // turn check sees every earlier ticket of the channel (all committed by then), which a single SQL
      // statement, whose snapshot predates the lock, would not. The lock, held until commit, makes the tickets
      // of one channel commit in number order.
      await client.query(`CREATE OR REPLACE FUNCTION ${TAKE}(
          p_channel text, p_holder uuid, p_lease_secs double precision,
          OUT ticket bigint, OUT blocked boolean)
        LANGUAGE plpgsql AS $$
        BEGIN
          PERFORM pg_advisory_xact_lock(hashtext(p_channel));
          INSERT INTO ${TABLE} (channel_id, holder, lease_until)
            VALUES (p_channel, p_holder, now() + make_interval(secs => p_lease_secs))
            RETURNING id INTO ticket;
          DELETE FROM ${TABLE} WHERE channel_id = p_channel AND id < ticket AND lease_until <= now();
          blocked := EXISTS (SELECT 1 FROM ${TABLE} WHERE channel_id = p_channel AND id < ticket);
        END $$`);
      // Under the same lock, a ticket taken after the release sees no earlier ticket, and one taken before is
      // seen here and notified: no waiter is left to its poll.
      // A process's own later tickets need no notification: they follow in its local queue.
      await client.query(`CREATE OR REPLACE FUNCTION ${RELEASE}(
          p_channel text, p_ticket bigint, p_holder uuid)
        RETURNS void LANGUAGE plpgsql AS $$
        BEGIN
          PERFORM pg_advisory_xact_lock(hashtext(p_channel));
          DELETE FROM ${TABLE} WHERE id = p_ticket;
          IF EXISTS (SELECT 1 FROM ${TABLE}
                     WHERE channel_id = p_channel AND id > p_ticket AND holder <> p_holder) THEN
            PERFORM pg_notify('${NOTIFY_CHANNEL}', p_channel);
          END IF;
        END $$`);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
    await this.#listen();
    this.#renewTimer = setInterval(() => void this.#renew(), this.#leaseMs / 3);
    this.#renewTimer.unref();
  }

  async #listen(): Promise<void> {
    const client = await this.#pool.connect();
    let listening = false;
    let released = false;
    // Gives a dead connection back, so that it neither holds a pool slot for good nor blocks pool.end().
    const release = () => {
      if (released) return;
      released = true;
      client.release(true);
    };
    client.on('notification', ({ payload }) => {
      if (payload) this.#wake(payload);
    });
    client.on('end', () => {
      release();
      if (!listening) return; // the failed LISTEN below retries
      if (this.#listener === client) this.#listener = undefined;
      // Notifications sent meanwhile are covered by polling; listen again once the database answers.
      this.#listenAgain(1000);
    });
    try {
      await client.query(`LISTEN ${NOTIFY_CHANNEL}`);
    } catch (error) {
      release();
      throw error;
    }
    listening = true;
    this.#listener = client;
    this.#releaseListener = release;
  }

  /** Listens again after `delayMs`, and keeps trying (backing off up to 30 s) until it works or the sequencer closes. */
  #listenAgain(delayMs: number): void {
    if (this.#closed) return;
    setTimeout(() => {
      if (this.#closed || this.#listener) return;
      this.#listen().catch((error: unknown) => {
        this.#warn(error, 'listen failed');
        this.#listenAgain(Math.min(delayMs * 2, 30_000));
      });
    }, delayMs).unref();
  }

  /** Takes the next ticket of `key`, after the previous local one, so local arrival order is kept. */
  #takeTicket(key: string): Promise<{ id: string; blocked: boolean }> {
    const previous = this.#ticketTails.get(key) ?? Promise.resolve();
    const ticket = previous.then(async () => {
      const { rows } = await this.#pool.query<{ ticket: string; blocked: boolean }>(
        `SELECT ticket, blocked FROM ${TAKE}($1, $2, $3)`,
        [key, this.#holder, this.#leaseMs / 1000],
      );
      return { id: rows[0]!.ticket, blocked: rows[0]!.blocked };
    });
    const tail = ticket.catch(() => undefined);
    this.#ticketTails.set(key, tail);
    void tail.then(() => {
      if (this.#ticketTails.get(key) === tail) this.#ticketTails.delete(key);
    });
    return ticket;
  }

  /**
   * Resolves once no earlier live ticket of `key` remains; earlier tickets whose lease ran out are removed. A
   * check that fails is tried again, but not past the query deadline since the failures began: then the
   * failure is thrown (the database does not answer; the reply fails 503 instead of waiting for good).
   */
  async #waitForTurn(key: string, ticket: string): Promise<void> {
    let failingSince: number | undefined;
    for (;;) {
      if (this.#closed) throw new Error('channel sequencer closed');
      const woken = this.#nextWake(key);
      const checkedAt = Date.now();
      try {
        const { rows } = await this.#pool.query<{ blocked: boolean }>(
          `WITH expired AS (
             DELETE FROM ${TABLE} WHERE channel_id = $1 AND id < $2 AND lease_until <= now()
           )
           SELECT EXISTS (
             SELECT 1 FROM ${TABLE} WHERE channel_id = $1 AND id < $2 AND lease_until > now()
           ) AS blocked`,
          [key, ticket],
        );
        if (!rows[0]?.blocked) return;
        failingSince = undefined;
      } catch (error) {
        failingSince ??= checkedAt;
        if (Date.now() - failingSince >= this.#queryTimeoutMs) {
          woken.cancel();
          throw error;
        }
        this.#warn(error, 'sequencer check failed; retrying');
      }
      await woken.wait(this.#pollMs);
    }
  }

  /** A wake-up for `key`, registered before the check so a notification in between is not missed. */
  #nextWake(key: string): { wait(timeoutMs: number): Promise<void>; cancel(): void } {
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    const wakers = this.#waiters.get(key) ?? new Set();
    wakers.add(wake);
    this.#waiters.set(key, wakers);
    const forget = () => {
      wakers.delete(wake);
      if (wakers.size === 0 && this.#waiters.get(key) === wakers) this.#waiters.delete(key);
    };
    return {
      wait: async (timeoutMs) => {
        const timer = setTimeout(wake, timeoutMs);
        await woken;
        clearTimeout(timer);
        forget();
      },
      cancel: forget,
    };
  }

  #wake(key: string): void {
    for (const wake of this.#waiters.get(key) ?? []) wake();
  }

  async #finish(key: string, ticket: string): Promise<void> {
    try {
      await this.#pool.query(`SELECT ${RELEASE}($1, $2, $3)`, [key, ticket, this.#holder]);
    } catch (error) {
      // The lease runs out instead: the channel waits at most one lease.
      this.#warn(error, 'sequencer could not release a ticket');
    }
  }

  async #renew(): Promise<void> {
    // A connection that stopped answering without closing (a network cut) would LISTEN to nothing for good:
    // the query deadline drops it, and its end listens again. (LISTEN again is a no-op that proves the link.)
    this.#listener?.query(`LISTEN ${NOTIFY_CHANNEL}`).catch(() => undefined);
    try {
      await this.#pool.query(
        `UPDATE ${TABLE} SET lease_until = now() + make_interval(secs => $2) WHERE holder = $1`,
        [this.#holder, this.#leaseMs / 1000],
      );
    } catch (error) {
      this.#warn(error, 'sequencer could not renew its leases');
    }
  }

  #warn(error: unknown, what: string): void {
    this.#logger.warn({ error: error instanceof Error ? error.message : String(error) }, what);
  }
}
