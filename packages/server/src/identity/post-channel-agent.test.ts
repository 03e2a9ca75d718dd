import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds } from '../../test/databases';
import { sharedSecretPeople } from '../../test/shared-secret-people';
import { startTestServer, type TestServer } from '../../test/test-server';

/**
 * A signed-in person's post learns the channel's agent from its access check (one statement): the channel's own
 * agent answers in a channel made for another agent, the default agent in a new one, on each database.
 */
const kinds = await databaseKinds();
const SECRET = 'post-channel-agent-test-secret-of-40-chars';
const OPERATOR = 'post-channel-agent-operator-token';
const { idOf, tokenFor } = sharedSecretPeople(SECRET);

describe.each(kinds)('the agent that answers a person on $name', ({ create, skip }) => {
  let test: TestServer;
  let token: string;
  const ids = new Map<string, string>();

  beforeAll(async () => {
    if (skip) return;
    test = await startTestServer(
      {
        authToken: OPERATOR,
        env: { AUTH_JWT_SECRET: SECRET },
        characters: [{ name: 'Ada' }, { name: 'Bob' }],
        rateLimit: false,
      },
      await create(),
    );
    token = await tokenFor('alice');
    const listed = (await (
      await fetch(`${test.url}/api/agents`, { headers: { authorization: `Bearer ${OPERATOR}` } })
    ).json()) as { data: { agents: { id: string; name: string }[] } };
    for (const agent of listed.data.agents) ids.set(agent.name, agent.id);
  }, 60_000);
  afterAll(async () => {
    await test?.[Symbol.asyncDispose]();
  });

  const as = (method: string, path: string, body?: unknown) =>
    fetch(`${test.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  /** The authors of the channel's replies. */
  const replyAuthors = async (channelId: string) => {
    const history = (await (
      await as('GET', `/api/messaging/channels/${channelId}/messages`)
    ).json()) as {
      data: { messages: { authorId: string }[] };
    };
    return history.data.messages
      .map((message) => message.authorId)
      .filter((author) => author !== idOf('alice'));
  };

  it.skipIf(skip)(
    'a channel made for Bob is answered by Bob, a new id by the default agent',
    async () => {
      const made = await as('POST', '/api/messaging/channels', {
        name: 'with Bob',
        agentId: ids.get('Bob'),
      });
      expect(made.status).toBe(201);
      const bobs = ((await made.json()) as { data: { id: string } }).data.id;
      const fresh = randomUUID();
      const answers = await Promise.all([
        as('POST', `/api/messaging/channels/${bobs}/messages`, { text: 'Hello', mode: 'sync' }),
        as('POST', `/api/messaging/channels/${fresh}/messages`, { text: 'Hello', mode: 'sync' }),
        as('POST', `/api/messaging/channels/${fresh}/messages`, {
          text: 'Hello again',
          mode: 'sync',
        }),
      ]);
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
      expect(await replyAuthors(bobs)).toEqual([ids.get('Bob')]);
      expect(await replyAuthors(fresh)).toEqual([ids.get('Ada'), ids.get('Ada')]);
      // Later posts (the membership remembered on the embedded database) keep to the channel's agent.
      expect(
        (
          await as('POST', `/api/messaging/channels/${bobs}/messages`, {
            text: 'Again',
            mode: 'sync',
          })
        ).status,
      ).toBe(200);
      expect(await replyAuthors(bobs)).toEqual([ids.get('Bob'), ids.get('Bob')]);
    },
  );
});
