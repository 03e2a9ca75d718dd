import { randomUUID } from 'node:crypto';
import { createServer as createNetServer } from 'node:net';
import { DEFAULT_SERVER_ID, ParleyError } from '@parley/core';
import { afterAll, describe, expect, it } from 'vitest';
import { databaseKinds, type TestDatabase } from '../../test/databases';
import { ScheduledMessageStore } from '../scheduling/scheduled-message-store';
import { createDatabase, type Database } from './create-database';
import { MessageStore, type NewMessage } from './message-store';
import { DATABASE_UNAVAILABLE, isDatabaseUnavailable, toStorageError } from './to-storage-error';

const kinds = await databaseKinds();

function message(overrides: Partial<NewMessage>): NewMessage {
  return {
    id: randomUUID(),
    channelId: randomUUID(),
    serverId: DEFAULT_SERVER_ID,
    authorId: 'user-1',
    authorName: 'User',
    content: 'hello',
    sourceType: 'api',
    metadata: {},
    createdAt: new Date(),
    ...overrides,
  };
}

function deep(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let level = 0; level < depth; level += 1) value = { a: value };
  return value;
}

async function errorOf(promise: Promise<unknown>): Promise<ParleyError> {
  const error = await promise.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(ParleyError.isInstance(error), `expected a ParleyError, got ${String(error)}`).toBe(true);
  return error as ParleyError;
}

describe.each(kinds)('data the database refuses is a 400 on $name', ({ create, skip }) => {
  let testDatabase: TestDatabase | undefined;
  let database: Database | undefined;

  async function stores() {
    testDatabase ??= await create();
    database ??= createDatabase(testDatabase.location);
    await database.migrate();
    return {
      messages: new MessageStore(database.db),
      scheduled: new ScheduledMessageStore(database.db),
    };
  }

  afterAll(async () => {
    await database?.close();
    await testDatabase?.dispose();
  });

  it.skipIf(skip)(
    'messages with NUL, lone surrogates, deep JSON or an impossible date, past the schemas',
    async () => {
      const { messages } = await stores();
      for (const bad of [
        { content: 'a\u0000b' },
        { authorId: 'x\u0000' },
        { metadata: { key: 'v\u0000' } },
        { metadata: { 'k\u0000': 1 } },
        { metadata: { lone: '\uD800' } },
        { metadata: deep(5_000) },
        { rawMessage: { text: 'x', thought: '\u0000' } },
        { createdAt: new Date(8.64e15) },
        // Past every check in the store: PostgreSQL itself refuses it (22P02), still a 400.
        { channelId: 'not-a-uuid' },
        { inReplyTo: 'not-a-uuid' },
      ] satisfies Partial<NewMessage>[]) {
        const error = await errorOf(messages.insert(message(bad)));
        expect(error.code, JSON.stringify(Object.keys(bad))).toBe('BAD_REQUEST');
        // The client learns which field, never PostgreSQL's own text.
        expect(error.message).not.toMatch(/jsonb|syntax|invalid input/);
      }
      const history = await errorOf(messages.list('not-a-uuid', { limit: 1 }));
      expect(history.code).toBe('BAD_REQUEST');
      // The store still works, and a duplicate id is still a conflict, not a 400.
      const good = message({});
      await messages.insert(good);
      expect((await errorOf(messages.insert(good))).code).toBe('CONFLICT');
    },
  );

  it.skipIf(skip)('scheduled messages with an impossible date or unstorable text', async () => {
    const { scheduled } = await stores();
    const base = {
      id: randomUUID(),
      agentId: randomUUID(),
      channelId: randomUUID(),
      serverId: DEFAULT_SERVER_ID,
      content: 'later',
      metadata: {},
      sendAt: new Date(Date.now() + 60_000),
    };
    for (const bad of [
      { sendAt: new Date(8.64e15) },
      { sendAt: new Date('+275760-09-13T00:00:00Z') },
      { sendAt: new Date('99999') },
      { content: 'a\u0000' },
      { metadata: { nested: { x: '\uDC00' } } },
    ]) {
      const error = await errorOf(scheduled.schedule({ ...base, id: randomUUID(), ...bad }));
      expect(error.code).toBe('BAD_REQUEST');
    }
    await scheduled.schedule(base);
  });
});

describe('an unreachable database is a 503 with a clear reason', () => {
  it('classifies refused, reset and PostgreSQL shutdown errors, and only those', () => {
    expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBe(
      true,
    );
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code: '57P01' }))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code: '22021' }))).toBe(false);
    expect(isDatabaseUnavailable(new TypeError('x is undefined'))).toBe(false);
    const unknown = new Error('boom');
    expect(toStorageError(unknown, 'message')).toBe(unknown);
  });

  it('a store whose PostgreSQL refuses connections answers UNAVAILABLE', async () => {
    // A port that was free a moment ago: nothing listens there.
    const probe = createNetServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const database = createDatabase({
      kind: 'postgres',
      url: `postgres://postgres@127.0.0.1:${port}/none`,
    });
    try {
      const store = new MessageStore(database.db);
      for (const attempt of [
        () => store.insert(message({})),
        () => store.list(randomUUID(), { limit: 1 }),
      ]) {
        const error = await errorOf(attempt());
        expect(error.code).toBe('UNAVAILABLE');
        expect(error.status).toBe(503);
        expect(error.details).toEqual({ reason: DATABASE_UNAVAILABLE });
      }
    } finally {
      await database.close();
    }
  });
});
