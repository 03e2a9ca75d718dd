import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createRunDatabase, skipWithoutPostgres } from '../scale/cluster';

/**
 * kill -9 after an approved action started: one approval, one execution. Process A continues the approved reply,
 * DELETE_FILE's handler runs (a line in the run log), then A waits on the model and is killed. Process B, on the
 * same database, takes the reply over once A's lease runs out: it must not run DELETE_FILE again but tell the
 * model the outcome is unknown, unless the action says it is idempotent, in which case it runs it again.
 */

const SCRIPT = fileURLToPath(new URL('./approval-crash-node.mjs', import.meta.url));
/** Far above what a takeover needs (a lease of two seconds, a sweep every 200 ms). */
const DEADLINE_MS = 120_000;
const LEASE_MS = '2000';

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
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
}

const json = { 'content-type': 'application/json' };

async function runs(log: string): Promise<string[]> {
  const text = await readFile(log, 'utf8').catch(() => '');
  return text.split('\n').filter((line) => line !== '');
}

async function until<T>(what: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + DEADLINE_MS;
  for (;;) {
    const value = await what();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The reply's events from `url`, followed to its end wherever it goes on. */
async function eventsOf(url: string, replyId: string) {
  const response = await fetch(`${url}/api/messaging/replies/${replyId}/events`, {
    signal: AbortSignal.timeout(DEADLINE_MS),
  });
  const events: { event: string; data: Record<string, unknown> }[] = [];
  for (const block of (await response.text()).split('\n\n')) {
    const event = /^event: (.*)$/m.exec(block)?.[1];
    const data = /^data: (.*)$/m.exec(block)?.[1];
    if (event && data !== undefined) {
      events.push({ event, data: JSON.parse(data) as Record<string, unknown> });
    }
  }
  return { status: response.status, events };
}

async function approveThenCrash(idempotent: boolean) {
  const database = await createRunDatabase();
  const dir = await mkdtemp(join(tmpdir(), 'parley-approval-crash-'));
  const log = join(dir, 'runs.log');
  const env = {
    DATABASE_URL: database.url,
    RUN_LOG: log,
    APPROVAL_LEASE_MS: LEASE_MS,
    IDEMPOTENT: idempotent ? '1' : '0',
  };
  const a = await startNode({ ...env, STALL: '1' });
  let b: Node | undefined;
  try {
    const asked = await fetch(`${a.url}/api/messaging/channels/${randomUUID()}/messages`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ entityId: 'user-1', text: 'delete the report', mode: 'sync' }),
    });
    expect(asked.status).toBe(202);
    const { replyId } = (await asked.json()) as { replyId: string };
    expect(await runs(log)).toEqual([]);

    const approved = await fetch(`${a.url}/api/messaging/replies/${replyId}/approvals`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ toolCallId: 'call_delete', approved: true }),
    });
    expect(approved.status).toBe(202);
    // A ran the handler and now waits on the model; it dies there.
    const before = await until(
      () => runs(log),
      (lines) => lines.length >= 1,
    );
    expect(before).toEqual([`${a.child.pid} /srv/report.txt`]);
    await a.crash();

    b = await startNode(env);
    const followed = await eventsOf(b.url, replyId);
    expect(followed.status).toBe(200);
    const done = followed.events.find((event) => event.event === 'done');
    expect(done, JSON.stringify(followed.events.at(-1))).toBeDefined();
    return { runs: await runs(log), text: String(done?.data.text), bPid: b.child.pid };
  } finally {
    await a.crash().catch(() => undefined);
    await b?.stop();
    await rm(dir, { recursive: true, force: true });
    await database.dispose();
  }
}

const noPostgres = await skipWithoutPostgres('the approval crash test');

describe('an approved action and a process killed after it started (two processes, one PostgreSQL)', () => {
  it.skipIf(noPostgres)(
    'runs once: the process that takes over tells the model the outcome is unknown',
    async () => {
      const outcome = await approveThenCrash(false);
      expect(outcome.runs).toHaveLength(1);
      expect(outcome.text).toMatch(/^Result: /);
      expect(outcome.text).toMatch(/outcome .*unknown/i);
      expect(outcome.text).not.toContain('Deleted');
    },
    240_000,
  );

  it.skipIf(noPostgres)(
    'an action that declares itself idempotent runs again on the process that takes over',
    async () => {
      const outcome = await approveThenCrash(true);
      expect(outcome.runs).toHaveLength(2);
      expect(outcome.runs[1]).toBe(`${outcome.bPid} /srv/report.txt`);
      expect(outcome.text).toBe('Result: Deleted /srv/report.txt');
    },
    240_000,
  );
});
