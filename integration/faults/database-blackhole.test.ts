import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, createServer } from '@parley/server';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp } from '../support/start-app';
import { type TcpProxy, startTcpProxy } from './tcp-proxy';

// The machine's PostgreSQL is never stopped: the tests put a proxy of their own in front of a database of their
// own and switch it to a blackhole (connections accepted and held, nothing forwarded, no reset) mid-traffic.
const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const admin = new URL(ADMIN_URL);

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

const reachable = await adminQuery('select 1').then(
  () => true,
  (error: unknown) => {
    // Printed on purpose: a silent skip would hide an untested promise.
    // eslint-disable-next-line no-console
    console.warn(`skipping the database blackhole tests: ${(error as Error).message}`);
    return false;
  },
);

/** One request of the traffic: what it was, and how it ended (status 0: no HTTP answer, the connection failed). */
interface Outcome {
  kind: string;
  status?: number;
  /** The answer's `error.code` when it is a failure envelope. */
  code?: string;
}

type Kind = 'submit' | 'sync' | 'websocket' | 'history' | 'keyed submit';
const KINDS: Kind[] = ['submit', 'sync', 'websocket', 'history', 'keyed submit'];

/** Sends one request of `kind` and reads its whole answer (a failure to connect or a reset is status 0). */
async function send(url: string, kind: Kind, channelId: string): Promise<Outcome> {
  const json = { 'content-type': 'application/json' };
  const submitBody = JSON.stringify({
    channel_id: channelId,
    author_id: 'probe',
    content: `hello ${randomUUID()}`,
  });
  const requests: Record<Kind, () => Promise<Response>> = {
    submit: () =>
      fetch(`${url}/api/messaging/submit`, { method: 'POST', headers: json, body: submitBody }),
    'keyed submit': () =>
      fetch(`${url}/api/messaging/submit`, {
        method: 'POST',
        headers: { ...json, 'idempotency-key': randomUUID() },
        body: submitBody,
      }),
    sync: () =>
      fetch(`${url}/api/messaging/channels/${channelId}/messages`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ text: 'hello', entityId: 'probe', mode: 'sync' }),
      }),
    websocket: () =>
      fetch(`${url}/api/messaging/channels/${channelId}/messages`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ text: 'hello', entityId: 'probe', mode: 'websocket' }),
      }),
    history: () => fetch(`${url}/api/messaging/channels/${channelId}/messages`),
  };
  try {
    const response = await requests[kind]();
    const text = await response.text();
    let code: string | undefined;
    try {
      code = (JSON.parse(text) as { error?: { code?: string } }).error?.code;
    } catch {
      // not JSON: no code
    }
    return { kind, status: response.status, code };
  } catch {
    return { kind, status: 0 };
  }
}

/**
 * Steady traffic of every kind against `urls`, `workers` requests at a time, each worker sending its next
 * request when the last is answered. `stop()` ends it; `unanswered()` is what was sent and not answered yet.
 */
function traffic(urls: string[], workers: number) {
  let stopped = false;
  const outcomes: Outcome[] = [];
  const inFlight = new Map<number, Kind>();
  let next = 0;
  const loops = Array.from({ length: workers }, async (_, worker) => {
    const channelId = randomUUID();
    for (let round = 0; !stopped; round += 1) {
      const kind = KINDS[(worker + round) % KINDS.length]!;
      const id = next++;
      inFlight.set(id, kind);
      outcomes.push(await send(urls[worker % urls.length]!, kind, channelId));
      inFlight.delete(id);
    }
  });
  return {
    outcomes,
    /** The requests sent and not answered yet, by kind. */
    unanswered: () => [...inFlight.values()],
    stop() {
      stopped = true;
    },
    done: Promise.all(loops),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `done()` holds or `ms` passed; returns whether it held. */
async function until(done: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (!done() && Date.now() < end) await sleep(50);
  return done();
}

/** A database of the test's own behind a proxy of its own; `url` reaches it through the proxy. */
async function proxiedDatabase() {
  const name = `parley_blackhole_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  await adminQuery(`create database ${name}`);
  const proxy = await startTcpProxy({ host: admin.hostname, port: Number(admin.port || 5432) });
  const through = new URL(ADMIN_URL);
  through.port = String(proxy.port);
  through.pathname = `/${name}`;
  return {
    proxy,
    url: through.toString(),
    async dispose() {
      await proxy.restore();
      await proxy.cut();
      await adminQuery(`drop database if exists ${name} with (force)`);
    },
  };
}

// The deadline the servers get: a query (and a wait for a connection) fails after it. Short, so that the
// tests are quick; the bound each test allows is several times larger, so only a request that waited on the
// database past its deadline (or forever) can fail it.
const QUERY_TIMEOUT_MS = 2000;

describe.skipIf(!reachable)('a database that stops answering mid-traffic', () => {
  let database: Awaited<ReturnType<typeof proxiedDatabase>>;
  let proxy: TcpProxy;
  const servers: ReturnType<typeof createServer>[] = [];
  const urls: string[] = [];

  beforeAll(async () => {
    database = await proxiedDatabase();
    proxy = database.proxy;
    for (let i = 0; i < 2; i += 1) {
      const server = createServer({
        port: 0,
        logger: createLogger('silent'),
        env: {},
        database: {
          kind: 'postgres',
          url: database.url,
          poolSize: 4,
          queryTimeoutMs: QUERY_TIMEOUT_MS,
        },
        shutdownTimeoutMs: 3000,
      });
      servers.push(server);
      // One at a time: both migrate the same database.
      urls.push((await server.start()).url);
    }
  });

  afterAll(async () => {
    await proxy?.restore();
    await Promise.all(servers.map((server) => server.stop()));
    await database?.dispose();
  });

  it('answers every request in flight when it went silent, and every later one, with 503 within the deadline', async () => {
    const load = traffic(urls, 24);
    // Healthy traffic first: every kind of request succeeds.
    await until(() => load.outcomes.length >= 100, 20_000);
    expect(
      load.outcomes.filter(
        (outcome) => outcome.status !== 200 && outcome.status !== 201 && outcome.status !== 202,
      ),
    ).toEqual([]);
    const before = load.outcomes.length;

    proxy.blackhole();
    // Traffic goes on against the silent database for a while: requests in flight at the cut, and new ones.
    await sleep(QUERY_TIMEOUT_MS);
    load.stop();
    // A request waits for a connection (at most the deadline) and then for its query (at most the deadline);
    // anything that waited longer than twice that again was not bounded by the deadline.
    const answered = await until(() => load.unanswered().length === 0, 4 * QUERY_TIMEOUT_MS + 4000);
    const left = load.unanswered();
    await proxy.restore();
    await load.done;
    expect({ answered, left }).toEqual({ answered: true, left: [] });
    const during = load.outcomes.slice(before);
    expect(during.length).toBeGreaterThan(24);
    // Each answer during the silence is a 503 UNAVAILABLE or a success that beat it; no reset, no 500.
    const unexpected = during.filter(
      (outcome) =>
        !(outcome.status === 503 && outcome.code === 'UNAVAILABLE') &&
        ![200, 201, 202].includes(outcome.status ?? 0),
    );
    expect(unexpected).toEqual([]);
    expect(during.filter((outcome) => outcome.status === 503).length).toBeGreaterThan(0);

    // And it recovers by itself.
    for (const url of urls) {
      await expect
        .poll(async () => (await send(url, 'submit', randomUUID())).status, { timeout: 20_000 })
        .toBe(201);
    }
  }, 90_000);
});

describe.skipIf(!reachable)('SIGTERM while the database does not answer', () => {
  it('answers every request in flight (503) before it exits, resetting none', async () => {
    const database = await proxiedDatabase();
    const folder = await mkdtemp(join(tmpdir(), 'parley-blackhole-'));
    try {
      const character = join(folder, 'ada.json');
      await writeFile(character, JSON.stringify({ name: 'Ada', bio: 'A test agent.' }));
      const app = await startApp(character, { DATABASE_URL: database.url, LOG_LEVEL: 'info' });
      // Healthy first.
      expect((await send(app.url, 'submit', randomUUID())).status).toBe(201);
      database.proxy.blackhole();
      const channelId = randomUUID();
      const inFlight = Array.from({ length: 16 }, (_, index) =>
        send(app.url, KINDS[index % KINDS.length]!, channelId),
      );
      // The requests reach the server and wait on the silent database.
      await sleep(500);
      const exitCode = await app.stop();
      const outcomes = await Promise.all(inFlight);
      expect(outcomes.filter((outcome) => outcome.status !== 503)).toEqual([]);
      expect(exitCode).toBe(0);
    } finally {
      await database.dispose();
      await rm(folder, { recursive: true, force: true });
    }
  }, 90_000);
});
