import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { copyPGliteTemplate } from '../../test/databases';
import { ScriptedModel } from '../../test/scripted-model';
import { createAgentProfiles } from '../agents/agent-registry';
import { createLogger } from '../logger';
import { createElizaModel } from '../models';
import { createDatabase } from '../storage/create-database';
import { MessageStore } from '../storage/message-store';
import { roomDelivery } from '../reply/delivery/deliver-to-room';
import { MessagingService } from './messaging-service';
import { type RoomBroadcaster, silentBroadcaster } from '../reply/delivery/room-broadcaster';

it('ends a reply with UNAVAILABLE, never INTERNAL, when the channel sequencer fails (its database gone)', async () => {
  const template = await copyPGliteTemplate();
  const database = createDatabase(template.location);
  try {
    const events: string[] = [];
    const broadcaster: RoomBroadcaster = {
      emit: (_room: string, event: string) => void events.push(event),
    } as RoomBroadcaster;
    const messaging = new MessagingService({
      store: new MessageStore(database.db),
      agents: createAgentProfiles([]),
      model: createElizaModel(),
      logger: createLogger('silent'),
      broadcaster,
      consumers: [roomDelivery(broadcaster)],
      sequencer: { run: () => Promise.reject(new Error('connection terminated')) },
    });
    const { reply } = await messaging.converse({
      channelId: randomUUID(),
      text: 'hello',
      entityId: 'u',
      source: 'test',
    });
    const end = await reply.ended;
    expect(end).toMatchObject({ type: 'error', code: 'UNAVAILABLE' });
    expect(events).toEqual(['messageBroadcast', 'messageError', 'messageComplete']);
    await expect.poll(() => messaging.pendingReplies).toBe(0);
  } finally {
    await database.close();
    await template.dispose();
  }
});

it('a stop aborts every running reply through its own controller, and replies started after it', async () => {
  const template = await copyPGliteTemplate();
  const database = createDatabase(template.location);
  try {
    const model = new ScriptedModel();
    model.behaviour = { gate: new Promise<void>(() => undefined) };
    const messaging = new MessagingService({
      store: new MessageStore(database.db),
      agents: createAgentProfiles([]),
      model,
      logger: createLogger('silent'),
      broadcaster: silentBroadcaster,
    });
    const post = (channelId: string) =>
      messaging.converse({ channelId, text: 'hello', entityId: 'u', source: 'test' });
    const running = await Promise.all([post(randomUUID()), post(randomUUID())]);
    await expect.poll(() => model.requests.length).toBe(2);
    messaging.abortReplies();
    // The model sees each reply's signal abort (it answers with its own error).
    for (const { reply } of running) expect(await reply.ended).toMatchObject({ type: 'error' });
    expect(model.aborted).toHaveLength(2);
    // A reply started after the stop ends before it reaches the model.
    const late = await post(randomUUID());
    expect(await late.reply.ended).toMatchObject({ type: 'error', code: 'UNAVAILABLE' });
    expect(model.requests).toHaveLength(2);
    await expect.poll(() => messaging.pendingReplies).toBe(0);
  } finally {
    await database.close();
    await template.dispose();
  }
});
