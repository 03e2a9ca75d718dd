import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { copyPGliteTemplate } from '../../test/databases';
import { createAgentProfiles } from '../agents/agent-registry';
import { createLogger } from '../logger';
import { createElizaModel } from '../models';
import { createDatabase } from '../storage/create-database';
import { MessageStore } from '../storage/message-store';
import { MessagingService } from './messaging-service';
import type { RoomBroadcaster } from './room-broadcaster';

it('ends a reply with an error part when the channel sequencer fails (its database gone)', async () => {
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
      sequencer: { run: () => Promise.reject(new Error('connection terminated')) },
    });
    const { message, agent } = await messaging.postUserMessage({
      channelId: randomUUID(),
      text: 'hello',
      entityId: 'u',
      source: 'test',
    });
    const end = await messaging.reply(agent, message).ended;
    expect(end).toMatchObject({ type: 'error', code: 'INTERNAL' });
    expect(events).toEqual(['messageBroadcast', 'messageError', 'messageComplete']);
    await expect.poll(() => messaging.pendingReplies).toBe(0);
  } finally {
    await database.close();
    await template.dispose();
  }
});
