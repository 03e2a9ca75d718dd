import { randomUUID } from 'node:crypto';
import { ElizaClient } from '@elizaos/api-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestServer, startServer } from '../support/start-server';

/**
 * elizaOS's own client (`@elizaos/api-client` 1.7.2, from npm) against a real Parley server: the `memory.*`
 * calls, in the order a person uses them. Rooms are Parley channels; the facts are what the offline model's
 * rules remembered from a message (FACT_EXTRACTION's default for the offline model).
 */
const TOKEN = 'eliza-memory-token';
type Id = Parameters<ElizaClient['memory']['getRoom']>[0];

let running: TestServer;
let client: ElizaClient;
let agentId: Id;
let roomId: Id;
const person = randomUUID();

beforeAll(async () => {
  running = await startServer({
    authToken: TOKEN,
    characters: [{ name: 'Eliza', bio: ['Remembers.'] }],
  });
  client = new ElizaClient({ baseUrl: running.url, apiKey: TOKEN });
  agentId = (await client.agents.listAgents()).agents[0]!.id as Id;
});
afterAll(() => running?.server.stop());

const say = async (room: string, text: string) => {
  const response = await fetch(`${running.url}/api/messaging/channels/${room}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': TOKEN },
    body: JSON.stringify({ text, entityId: person, mode: 'sync' }),
  });
  expect(response.status).toBe(200);
};
const facts = async (room?: Id) =>
  (room
    ? await client.memory.getRoomMemories(agentId, room, { tableName: 'facts' } as never)
    : await client.memory.getAgentMemories(agentId, { tableName: 'facts' } as never)
  ).memories;

describe('@elizaos/api-client 1.7.2: memory', () => {
  it('memory.createRoom, getRoom, listAgentRooms: a room is a channel of the agent', async () => {
    const room = await client.memory.createRoom(agentId, { name: 'Remembering', type: 'DM' });
    expect(room).toMatchObject({ name: 'Remembering', agentId, type: 'DM' });
    roomId = room.id;
    expect(await client.memory.getRoom(agentId, roomId)).toMatchObject({
      id: roomId,
      name: 'Remembering',
    });
    const { rooms } = await client.memory.listAgentRooms(agentId);
    expect(rooms.map((each) => each.id)).toContain(roomId);
  });

  it("memory.getRoomMemories: the room's messages, and the facts learned in it", async () => {
    await say(roomId, 'Hello, my name is Ada and I live in Lisbon.');
    const { memories } = await client.memory.getRoomMemories(agentId, roomId);
    expect(memories.map((memory) => (memory.content as { text: string }).text)).toContain(
      'Hello, my name is Ada and I live in Lisbon.',
    );
    await expect.poll(async () => (await facts(roomId)).length, { timeout: 20_000 }).toBe(2);
    const learned = await facts(roomId);
    expect(learned.map((memory) => (memory.content as { text: string }).text).sort()).toEqual([
      'Their name is Ada',
      'They live in Lisbon',
    ]);
    expect(
      learned.every((memory) => memory.entityId === person && memory.embedding === undefined),
    ).toBe(true);
  });

  it('memory.updateMemory and memory.deleteMemory', async () => {
    const [first] = await facts();
    await client.memory.updateMemory(agentId, first!.id, {
      content: { text: 'Their name is Ada Lovelace' },
    });
    expect((await facts()).map((memory) => (memory.content as { text: string }).text)).toContain(
      'Their name is Ada Lovelace',
    );
    expect(await client.memory.deleteMemory(agentId, first!.id)).toBeDefined();
    expect((await facts()).map((memory) => memory.id)).not.toContain(first!.id);
    await expect(client.memory.deleteMemory(agentId, first!.id)).rejects.toMatchObject({
      status: 404,
    });
  });

  it('memory.clearRoomMemories and memory.clearAgentMemories', async () => {
    await client.memory.clearRoomMemories(agentId, roomId);
    expect(await facts(roomId)).toEqual([]);
    const other = randomUUID();
    await say(other, 'I work at the observatory.');
    await expect.poll(async () => (await facts()).length, { timeout: 20_000 }).toBe(1);
    const { deleted } = await client.memory.clearAgentMemories(agentId);
    expect(deleted).toBe(1);
    expect(await facts()).toEqual([]);
  });

  it('an unknown agent is 404, a bad id 400', async () => {
    await expect(client.memory.listAgentRooms(randomUUID())).rejects.toMatchObject({
      status: 404,
    });
    await expect(client.memory.getRoom(agentId, 'not-a-uuid' as Id)).rejects.toMatchObject({
      status: 400,
    });
  });
});
