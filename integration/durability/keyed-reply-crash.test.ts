import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createRunDatabase, skipWithoutPostgres } from '../scale/cluster';

/**
 * kill -9 in the middle of a keyed reply: the user's message is stored, the key's reply claimed, and the process
 * that claimed it is gone. A retry with the same `Idempotency-Key`, against a new process on the same database,
 * gets the whole reply, under the reply id the first try was given, and nothing is stored twice.
 */

const SCRIPT = fileURLToPath(new URL('./keyed-reply-node.mjs', import.meta.url));
/** Far above what a takeover needs (a lease of a few seconds, a dead channel ticket's 30 s on PostgreSQL). */
const RETRY_DEADLINE_MS = 120_000;

interface Node {
  url: string;
  child: ChildProcess;
  crash(): Promise<void>;
  stop(): Promise<void>;
}

async function startNode(env: Record<string, string>): Promise<Node> {
  const child = spawn(process.execPath, [SCRIPT], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const report = JSON.parse(line) as { url?: string };
      if (report.url) resolve(report.url);
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${stderr}`)));
  });
  const exited = once(child, 'exit');
  return {
    url,
    child,
    async crash() {
      child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

/**
 * Posts a keyed `stream` message and reads its events until `until` says stop (or the stream ends); the
 * response body is cancelled then.
 */
async function streamKeyed(
  url: string,
  channelId: string,
  key: string,
  until: (event: SseEvent) => boolean,
  signal?: AbortSignal,
): Promise<{ status: number; events: SseEvent[] }> {
  const response = await fetch(`${url}/api/messaging/channels/${channelId}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify({
      text: 'Answer me, even if you crash',
      entityId: 'user-1',
      mode: 'stream',
    }),
    signal,
  });
  const events: SseEvent[] = [];
  if (!response.body) return { status: response.status, events };
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (!event || data === undefined) continue;
      events.push({ event, data: JSON.parse(data) as Record<string, unknown> });
      if (until(events.at(-1)!)) {
        await response.body.cancel().catch(() => undefined);
        return { status: response.status, events };
      }
    }
  }
  return { status: response.status, events };
}

async function historyOf(url: string, channelId: string) {
  const response = await fetch(`${url}/api/messaging/channels/${channelId}/messages?limit=200`);
  return (
    (await response.json()) as {
      data: { messages: { id: string; content: string; author_id: string }[] };
    }
  ).data.messages;
}

/** Kills a process mid-reply, starts another on the same database, and retries the keyed message there. */
async function crashMidReplyAndRetry(database: Record<string, string>, leaseMs: number) {
  const channelId = randomUUID();
  const key = `crash-${randomUUID()}`;
  const lease = { REPLY_LEASE_MS: String(leaseMs) };
  const first = await startNode({ ...database, ...lease, STALL: '1' });
  let second: Node | undefined;
  try {
    // Mid-reply: the first chunk has reached the client, the model stalls.
    const before = await streamKeyed(first.url, channelId, key, (event) => event.event === 'chunk');
    expect(before.status).toBe(200);
    const started = before.events.find((event) => event.event === 'user_message')!.data;
    expect(before.events.at(-1)).toMatchObject({ event: 'chunk', data: { chunk: 'The whole ' } });
    await first.crash();

    second = await startNode({ ...database, ...lease });
    const retry = await streamKeyed(
      second.url,
      channelId,
      key,
      (event) => event.event === 'done' || event.event === 'error',
      AbortSignal.timeout(RETRY_DEADLINE_MS),
    );
    expect(retry.status).toBe(200);
    expect(retry.events.at(-1)).toMatchObject({
      event: 'done',
      data: { text: 'The whole answer.' },
    });
    const resumed = retry.events.find((event) => event.event === 'user_message')!.data;
    expect(resumed).toMatchObject({ id: started.id, replyId: started.replyId });

    // Stored once each: the user's message and the reply, under the reply id the first try was given.
    const stored = await historyOf(second.url, channelId);
    expect(stored.map((message) => message.id).sort()).toEqual(
      [started.id as string, started.replyId as string].sort(),
    );
    expect(stored.find((message) => message.id === started.replyId)?.content).toBe(
      'The whole answer.',
    );

    // Another retry answers the stored reply; nothing more is stored.
    const again = await streamKeyed(second.url, channelId, key, (event) => event.event === 'done');
    expect(again.events.at(-1)).toMatchObject({ data: { text: 'The whole answer.' } });
    expect(await historyOf(second.url, channelId)).toHaveLength(2);
  } finally {
    if (first.child.exitCode === null && first.child.signalCode === null) await first.crash();
    await second?.stop();
  }
}

const noPostgres = await skipWithoutPostgres('the keyed-reply crash test on PostgreSQL');

describe('a keyed reply cut by kill -9 is completed by its retry', () => {
  it("on the embedded database: the new process takes the dead one's reply over at once", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'parley-keyed-crash-'));
    try {
      // A lease far longer than the test: only the owner being gone lets the retry take over.
      await crashMidReplyAndRetry({ DATA_DIR: dataDir }, 600_000);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 180_000);

  it.skipIf(noPostgres)(
    "on PostgreSQL shared by processes: the retry waits out the dead process's lease, then takes it over",
    async () => {
      const database = await createRunDatabase();
      try {
        await crashMidReplyAndRetry({ DATABASE_URL: database.url }, 8_000);
      } finally {
        await database.dispose();
      }
    },
    240_000,
  );
});
