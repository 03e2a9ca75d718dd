import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { databaseKinds } from '../../test/databases';
import { createServer } from '../create-server';
import { createLogger } from '../logger';
import { createDatabase } from '../storage/create-database';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const dispose of cleanup.splice(0).reverse()) await dispose();
});

async function call(url: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : undefined };
}

const BOUND = 100;

describe.each(await databaseKinds())('the bound on agents made at run time, on $name', (kind) => {
  const creates = kind.name === 'postgres' ? 300 : 130;

  it.skipIf(kind.skip)(
    `${creates} creates released together: exactly ${BOUND} stored, loaded and answered 201, the rest 409`,
    async () => {
      const database = await kind.create();
      cleanup.push(() => database.dispose());
      const server = createServer({
        port: 0,
        logger: createLogger('silent'),
        env: {},
        agentManagement: { enabled: true },
        // A pool as large as a busy deployment's, so that the creates truly run at once.
        database:
          database.location.kind === 'postgres'
            ? { ...database.location, poolSize: 20 }
            : database.location,
      });
      const test = { url: (await server.start()).url };
      let running = true;
      cleanup.push(async () => {
        if (running) await server.stop();
      });

      const answers = await Promise.all(
        Array.from({ length: creates }, (_, n) =>
          call(test.url, 'POST', '/api/agents', {
            characterJson: { name: `Racer ${n} ${randomUUID()}`, bio: ['Made in a crowd.'] },
          }),
        ),
      );
      const statuses = new Map<number, number>();
      for (const answer of answers) {
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      }
      expect(Object.fromEntries(statuses)).toEqual({ 201: BOUND, 409: creates - BOUND });
      const createdIds = answers
        .filter((answer) => answer.status === 201)
        .map((answer) => answer.json.data.id as string)
        .sort();

      // Every 201 is an agent listed and answering; nothing else was kept.
      const listed = (await call(test.url, 'GET', '/api/agents')).json.data.agents as {
        id: string;
      }[];
      const defaultId = listed[0]!.id;
      expect(
        listed
          .slice(1)
          .map((agent) => agent.id)
          .sort(),
      ).toEqual(createdIds);
      for (const id of createdIds.slice(0, 3)) {
        expect((await call(test.url, 'GET', `/api/agents/${id}`)).status).toBe(200);
      }

      // Stopping the default agent works and its answer says so; it answers no message after.
      const stopped = await call(test.url, 'POST', `/api/agents/${defaultId}/stop`);
      expect(stopped.status).toBe(200);
      expect(stopped.json.data.status).toBe('inactive');
      const refused = await call(
        test.url,
        'POST',
        `/api/messaging/channels/${randomUUID()}/messages`,
        { text: 'are you there?', entityId: 'someone', agentId: defaultId, mode: 'sync' },
      );
      expect(refused.status).toBe(409);

      // The rows behind it: exactly the created agents, and the default's state.
      running = false;
      await server.stop();
      const { db, close } = createDatabase(database.location);
      try {
        const rows = await sql<{ id: string; character: unknown }>`
          SELECT id, character FROM managed_agents`.execute(db);
        const made = rows.rows.filter((row) => row.character !== null).map((row) => row.id);
        expect(made.sort()).toEqual(createdIds);
        expect(rows.rows.filter((row) => row.character === null).map((row) => row.id)).toEqual([
          defaultId,
        ]);
      } finally {
        await close();
      }
    },
  );
});
