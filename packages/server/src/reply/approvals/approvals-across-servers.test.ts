import { randomUUID } from 'node:crypto';
import { definePlugin } from '@parley/plugin-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import {
  weatherAction,
  weatherThenAnswer,
  type ActionCall,
} from '../../../test/agent-loop-fixture';
import { databaseKinds, type TestDatabase } from '../../../test/databases';
import { ScriptedModel } from '../../../test/scripted-model';
import { parseSse } from '../../../test/sse';
import { createServer, type ParleyServer } from '../../create-server';
import { createLogger } from '../../logger';
import { createDatabase } from '../../storage/create-database';
import { sql } from 'kysely';

/** A server on `database` whose model calls GET_WEATHER(Paris), which needs approval, then answers. */
async function startServer(database: TestDatabase) {
  const model = new ScriptedModel();
  model.behaviour = weatherThenAnswer();
  const calls: ActionCall[] = [];
  const plugin = definePlugin({
    name: 'approvals-test',
    actions: [weatherAction(calls, { needsApproval: true })],
  });
  const server: ParleyServer = createServer({
    port: 0,
    logger: createLogger('silent'),
    env: {},
    model,
    plugins: [plugin],
    database: database.location,
    approvals: { sweepMs: 100 },
  });
  const { url } = await server.start();
  return { server, url, calls };
}

const json = { 'content-type': 'application/json' };

async function askPaused(url: string, channelId: string): Promise<string> {
  const response = await fetch(`${url}/api/messaging/channels/${channelId}/messages`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ entityId: 'user-1', text: 'weather?', mode: 'sync' }),
  });
  expect(response.status).toBe(202);
  return ((await response.json()) as { replyId: string }).replyId;
}

const approve = (url: string, replyId: string) =>
  fetch(`${url}/api/messaging/replies/${replyId}/approvals`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ toolCallId: 'call_1', approved: true }),
  });

async function doneOf(url: string, replyId: string): Promise<{ text: string }> {
  const body = await (await fetch(`${url}/api/messaging/replies/${replyId}/events`)).text();
  return parseSse(body).find((event) => event.event === 'done')?.data as { text: string };
}

const kinds = await databaseKinds();
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** {@link startServer}, stopped when the test ends. */
async function startKept(database: TestDatabase) {
  const started = await startServer(database);
  cleanup.push(() => started.server.stop());
  return started;
}

/** A database (disposed when the test ends) with a reply paused on a server that has stopped since. */
async function pausedOnStoppedServer(create: () => Promise<TestDatabase>) {
  const database = await create();
  cleanup.push(() => database.dispose());
  const first = await startServer(database);
  const replyId = await askPaused(first.url, randomUUID());
  await first.server.stop();
  return { database, first, replyId };
}

describe.each(kinds)('approvals across servers ($name)', ({ create, skip }) => {
  it.skipIf(skip)(
    'a reply paused before every server stopped goes on after the restart',
    async () => {
      const { database, first, replyId } = await pausedOnStoppedServer(create);
      const second = await startKept(database);
      expect((await approve(second.url, replyId)).status).toBe(202);
      expect((await doneOf(second.url, replyId)).text).toContain('Sunny in Paris');
      expect(second.calls).toHaveLength(1);
      expect(first.calls).toHaveLength(0);
    },
  );

  it.skipIf(skip)(
    'a continuation whose process died (its lease lapsed) is taken over by the next server',
    async () => {
      const { database, replyId } = await pausedOnStoppedServer(create);
      // As a process leaves it that approved the call, claimed the reply and died mid-run.
      const opened = createDatabase(database.location);
      await sql`UPDATE approval_requests SET decision = 'approved', decided_at = now()`.execute(
        opened.db,
      );
      await sql`UPDATE paused_replies SET status = 'running',
                  lease_until = now() - interval '1 second'`.execute(opened.db);
      await opened.close();

      const second = await startKept(database);
      expect((await doneOf(second.url, replyId)).text).toContain('Sunny in Paris');
      expect(second.calls).toHaveLength(1);
    },
  );
});

describe.each(kinds.filter((kind) => kind.name === 'postgres'))(
  'approvals in a cluster ($name)',
  ({ create, skip }) => {
    it.skipIf(skip)(
      'decided on another server than the one that asked; the asker follows it to done',
      async () => {
        const database = await create();
        cleanup.push(() => database.dispose());
        const asker = await startKept(database);
        const decider = await startKept(database);

        const replyId = await askPaused(asker.url, randomUUID());
        const followed = doneOf(asker.url, replyId);
        expect((await approve(decider.url, replyId)).status).toBe(202);
        expect((await approve(asker.url, replyId)).status).toBe(409);
        expect((await followed).text).toContain('Sunny in Paris');
        expect(decider.calls.length + asker.calls.length).toBe(1);
      },
    );
  },
);
