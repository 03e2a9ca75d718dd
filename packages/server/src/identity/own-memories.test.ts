import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedSecretPeople } from '../../test/shared-secret-people';
import { startTestServer, type TestServer } from '../../test/test-server';

/**
 * What an agent remembers about a person is theirs to see and delete, and nobody else's (but an admin's): attacked
 * through HTTP by another signed-in person asking for it by entity, by memory id and by "forget everything".
 */
const SECRET = 'own-memories-test-secret-of-forty-characters';
const OPERATOR = 'own-memories-operator-token';
const { idOf, tokenFor } = sharedSecretPeople(SECRET);

interface Memory {
  id: string;
  entityId: string;
  content: { text: string };
}

let test: TestServer;
let agentId: string;

beforeAll(async () => {
  test = await startTestServer({
    authToken: OPERATOR,
    env: { AUTH_JWT_SECRET: SECRET, FACT_EXTRACTION: 'rules' },
    rateLimit: false,
  });
  const agents = (await (
    await fetch(`${test.url}/api/agents`, { headers: { 'x-api-key': OPERATOR } })
  ).json()) as { data: { agents: { id: string }[] } };
  agentId = agents.data.agents[0]!.id;
}, 60_000);
afterAll(async () => {
  await test?.[Symbol.asyncDispose]();
});

const as = async (person: string) => ({ authorization: `Bearer ${await tokenFor(person)}` });
const call = async (headers: Record<string, string>, method: string, path: string) =>
  fetch(`${test.url}/api/agents/${agentId}/memories${path}`, { method, headers });
const memories = async (headers: Record<string, string>, query = '') => {
  const response = await call(headers, 'GET', query);
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: { memories: Memory[] } }).data.memories;
};

async function tell(person: string, text: string) {
  const response = await fetch(`${test.url}/api/messaging/channels/${randomUUID()}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(await as(person)) },
    body: JSON.stringify({ text, mode: 'sync', entityId: idOf(person) }),
  });
  expect(response.status).toBe(200);
}

describe('a person’s own memories', () => {
  it('a person lists and deletes what the agent remembers about them, and nothing of anyone else', async () => {
    await tell('alice', 'Hello! My name is Alice and I live in Lisbon.');
    await tell('bob', 'I live in Oslo.');
    const alice = await as('alice');
    const bob = await as('bob');
    const operator = { 'x-api-key': OPERATOR };
    await expect.poll(async () => (await memories(alice)).length).toBe(2);
    await expect.poll(async () => (await memories(bob)).length).toBe(1);
    const [bobs] = await memories(bob);
    expect(bobs!.content.text).toBe('They live in Oslo');
    expect((await memories(alice)).every((memory) => memory.entityId === idOf('alice'))).toBe(true);

    // Alice asks for Bob's by entity, deletes his by id, and tries to forget all of his: refused, and his
    // memory stays.
    const byEntity = await call(alice, 'GET', `?entityId=${idOf('bob')}`);
    expect(byEntity.status).toBe(403);
    expect(JSON.stringify(await byEntity.json())).not.toContain('Oslo');
    const byId = await call(alice, 'DELETE', `/${bobs!.id}`);
    expect(byId.status).toBe(404);
    const all = await call(alice, 'DELETE', `?entityId=${idOf('bob')}`);
    expect(all.status).toBe(403);
    expect(await memories(bob)).toHaveLength(1);
    // elizaOS's memory API (every person's memories at once) stays admin-only.
    expect(
      (await fetch(`${test.url}/api/memory/${agentId}/memories`, { headers: alice })).status,
    ).toBe(403);

    // Her own: one by id, then the rest at once.
    const [first] = await memories(alice);
    expect((await call(alice, 'DELETE', `/${first!.id}`)).status).toBe(200);
    expect(await memories(alice)).toHaveLength(1);
    expect((await call(alice, 'DELETE', `?entityId=${idOf('alice')}`)).status).toBe(200);
    expect(await memories(alice)).toEqual([]);

    // The operator sees anyone's; Bob's is still there.
    expect(await memories(operator, `?entityId=${idOf('bob')}`)).toHaveLength(1);
  }, 60_000);
});
