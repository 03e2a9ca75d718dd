import { randomUUID } from 'node:crypto';
import { TaskState, type Task } from '@a2a-js/sdk';
import { ClientFactory, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type ParleyServer } from '../create-server';
import { createLogger } from '../logger';
import type { ModelProvider } from '../models';
import { a2aUserMessage } from '../../test/a2a-message';
import { createPostgresDatabase, type TestDatabase } from '../../test/databases';
import { sharedSecretPeople } from '../../test/shared-secret-people';

/**
 * A2A tasks kept in the database, attacked from outside with the official SDK's client: two real servers on one
 * PostgreSQL database; a task sent to the first is found and cancelled through the second (its reply, running on
 * the first, stops), survives in the store, and is never found by another person.
 */
const TOKEN = 'a2a-tasks-cluster-token';
const SECRET = 'a2a-tasks-cluster-secret-of-forty-chars!!';
const { tokenFor } = sharedSecretPeople(SECRET);

/** Answers "wait" with a first piece and then nothing until its request is aborted; anything else at once. */
const model: ModelProvider = {
  name: 'waits',
  callsTools: false,
  async *stream(request) {
    const last = request.messages.at(-1);
    const said = typeof last?.content === 'string' ? last.content : '';
    if (!said.includes('wait')) {
      yield { type: 'text-delta', delta: `answer to: ${said}` };
      yield { type: 'finish', finishReason: 'stop' };
      return;
    }
    yield { type: 'text-delta', delta: 'first part; ' };
    await new Promise<void>((_, reject) => {
      if (request.signal?.aborted) reject(request.signal.reason as Error);
      request.signal?.addEventListener('abort', () => reject(request.signal!.reason as Error));
    });
  },
};

const servers: ParleyServer[] = [];
const urls: string[] = [];
let database: TestDatabase;

beforeAll(async () => {
  database = await createPostgresDatabase();
  for (let i = 0; i < 2; i += 1) {
    const server = createServer({
      port: 0,
      logger: createLogger('silent'),
      env: { AUTH_JWT_SECRET: SECRET },
      authToken: TOKEN,
      model,
      rateLimit: false,
      database: database.location,
    });
    servers.push(server);
    // One at a time: both migrate the same database.
    urls.push((await server.start()).url);
  }
}, 60_000);

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  await database?.dispose();
});

/** A client of `url` whose requests carry `bearer` (the operator's token, or a person's). */
async function clientOf(url: string, bearer = TOKEN): Promise<Client> {
  const withToken: typeof fetch = (input, init) =>
    fetch(input, {
      ...init,
      headers: { ...(init?.headers as Record<string, string>), authorization: `Bearer ${bearer}` },
    });
  return new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl: withToken })],
  }).createFromUrl(url);
}

const userMessage = a2aUserMessage;

describe('A2A tasks in the database, across processes and people', () => {
  it('a task running on one process is found and cancelled through the other; its reply stops there', async () => {
    const [first, second] = [await clientOf(urls[0]!), await clientOf(urls[1]!)];
    const contextId = randomUUID();
    const states: TaskState[] = [];
    let taskId: string | undefined;
    let seenElsewhere: Task | undefined;
    let cancelled: Task | undefined;
    for await (const event of first.sendMessageStream(userMessage('please wait', contextId))) {
      const payload = event.payload;
      if (payload?.$case === 'task') taskId = payload.value.id;
      if (payload?.$case === 'statusUpdate') states.push(payload.value.status!.state);
      // At the first piece of the answer, the other process is asked about the task, then told to cancel it.
      if (payload?.$case === 'artifactUpdate' && taskId && !cancelled) {
        seenElsewhere = await second.getTask({ tenant: '', id: taskId });
        cancelled = await second.cancelTask({ tenant: '', id: taskId, metadata: undefined });
      }
    }
    expect(seenElsewhere?.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(cancelled?.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    // The stream on the first process ended because its reply was cancelled there.
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_CANCELED);
    for (const client of [first, second]) {
      expect((await client.getTask({ tenant: '', id: taskId! })).status?.state).toBe(
        TaskState.TASK_STATE_CANCELED,
      );
    }
    // Nothing of the cancelled answer is stored as the agent's reply.
    const history = await fetch(`${urls[1]}/api/messaging/channels/${contextId}/messages`, {
      headers: { 'x-api-key': TOKEN },
    });
    const { data } = (await history.json()) as { data: { messages: { content: string }[] } };
    expect(data.messages.map((message) => message.content)).toEqual(['please wait']);
  });

  it('a completed task is got from either process; another person never finds it, nor cancels it', async () => {
    const alice = await tokenFor('alice');
    const bob = await tokenFor('bob');
    const asAlice = await clientOf(urls[0]!, alice);
    const task = (await asAlice.sendMessage(userMessage('hello', 'her-conversation'))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const elsewhere = await clientOf(urls[1]!, alice);
    expect((await elsewhere.getTask({ tenant: '', id: task.id })).status?.state).toBe(
      TaskState.TASK_STATE_COMPLETED,
    );
    for (const url of urls) {
      const asBob = await clientOf(url, bob);
      await expect(asBob.getTask({ tenant: '', id: task.id })).rejects.toThrow(/not found/i);
      await expect(
        asBob.cancelTask({ tenant: '', id: task.id, metadata: undefined }),
      ).rejects.toThrow(/not found/i);
    }
    // Bob naming the same context gets a conversation of his own, not Alice's channel.
    const his = (await (
      await clientOf(urls[1]!, bob)
    ).sendMessage(userMessage('hi', 'her-conversation'))) as Task;
    expect(his.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect((his.metadata as { parleyChannelId?: string }).parleyChannelId).not.toBe(
      (task.metadata as { parleyChannelId?: string }).parleyChannelId,
    );
  });
});
