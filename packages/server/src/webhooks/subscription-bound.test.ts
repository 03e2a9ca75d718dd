import { afterEach, describe, expect, it } from 'vitest';
import { databaseKinds } from '../../test/databases';
import { startTestServer } from '../../test/test-server';
import { client } from './test-support';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const dispose of cleanup.splice(0).reverse()) await dispose();
});

const BOUND = 20;

describe.each(await databaseKinds())('the bound on webhook subscriptions on $name', (kind) => {
  it.skipIf(kind.skip)(
    'subscribes released together: exactly the bound answered 201 and stored, the rest 409',
    async () => {
      const database = await kind.create();
      const server = await startTestServer(
        {
          webhooks: { privateTargets: ['127.0.0.1'], maxSubscriptions: BOUND, pollMs: 1000 },
        },
        database.location.kind === 'postgres'
          ? { ...database, location: { ...database.location, poolSize: 20 } }
          : database,
      );
      cleanup.push(async () => server[Symbol.asyncDispose]());
      const api = client(server.url);
      const answers = await Promise.all(
        Array.from({ length: BOUND * 3 }, (_, n) =>
          api.subscribe({ url: `http://127.0.0.1:9/hook-${n}`, events: ['message.created'] }),
        ),
      );
      const created = answers.filter((answer) => answer.status === 201);
      expect(created).toHaveLength(BOUND);
      expect(answers.filter((answer) => answer.status === 409)).toHaveLength(BOUND * 2);
      const listed = (await api.call('GET', '/api/webhooks')).body.data as { id: string }[];
      expect(listed.map((subscription) => subscription.id).sort()).toEqual(
        created.map((answer) => answer.body.data.id as string).sort(),
      );
    },
  );
});
