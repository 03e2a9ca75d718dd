import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { type RoomClient, joinAs, nextEvent, sendMessage, within } from './clients';
import { history, postToChannel, streamReply, submit, syncReply } from './rest';

/** Where a client connects: a process (or a proxy) and the transport it uses. */
export interface Entry {
  url: string;
  transport: 'polling' | 'websocket';
}

/** Resolves once every client other than `from` has seen `from` typing (retried until the cluster listens). */
async function typingReaches(from: RoomClient, others: RoomClient[], roomId: string) {
  const seen = Promise.all(
    others.map((other) =>
      nextEvent(
        other.socket,
        'userTyping',
        (typing) => typing.userId === from.entityId && typing.roomId === roomId,
        `${from.entityId} typing, on ${other.entityId}`,
      ),
    ),
  );
  const timer = setInterval(() => {
    from.socket.emit('typing', { roomId, userId: from.entityId, isTyping: true });
  }, 200);
  from.socket.emit('typing', { roomId, userId: from.entityId, isTyping: true });
  try {
    await seen;
  } finally {
    clearInterval(timer);
  }
}

/**
 * Clients on different entries share one room: typing, presence, messages and each agent reply exactly once; a
 * REST submit on the first entry reaches the last; `sync` and `stream` through every entry.
 */
export async function roomAcrossProcesses(entries: Entry[]): Promise<void> {
  const roomId = randomUUID();
  const clients: RoomClient[] = [];
  try {
    for (const [index, entry] of entries.entries()) {
      clients.push(await joinAs(entry.url, entry.transport, roomId, `user-${index}`));
    }
    for (const client of clients) {
      await typingReaches(
        client,
        clients.filter((other) => other !== client),
        roomId,
      );
    }

    // Presence: a late joiner on the second entry is announced everywhere, and so is its leaving.
    const others = clients.filter((_, index) => index !== 1);
    const joined = others.map((client) =>
      nextEvent(client.socket, 'userJoined', (event) => event.userId === 'late', 'userJoined'),
    );
    const late = await joinAs(entries[1]!.url, entries[1]!.transport, roomId, 'late');
    await Promise.all(joined);
    const left = others.map((client) =>
      nextEvent(client.socket, 'userLeft', (event) => event.userId === 'late', 'userLeft'),
    );
    late.close();
    await Promise.all(left);

    // Each client sends one message; everyone sees every message and every reply.
    const sent: string[] = [];
    for (const client of clients) {
      const complete = clients.map((member) =>
        nextEvent(member.socket, 'messageComplete', () => true, 'messageComplete'),
      );
      const id = await sendMessage(client, roomId, `hello from ${client.entityId}`);
      sent.push(id);
      const completes = await Promise.all(complete);
      for (const event of completes) expect(event.messageId).toBe(id);
    }

    // REST submit on the first entry reaches the client on the last one.
    const submitted = await submit(entries[0]!.url, roomId, 'posted over REST');
    await clients.at(-1)!.broadcast((broadcast) => broadcast.id === submitted, 'the REST submit');

    // sync and stream through every entry; the room sees those replies too.
    for (const entry of entries) {
      const text = await within(syncReply(entry.url, roomId, 'how are you?'), 'a sync reply');
      expect(text.length).toBeGreaterThan(0);
      const stream = await within(streamReply(entry.url, roomId, 'tell me more'), 'a stream reply');
      expect(stream.events[0]).toBe('user_message');
      expect(stream.events).toContain('chunk');
      expect(stream.events.at(-1)).toBe('done');
      expect(stream.text.length).toBeGreaterThan(0);
      await clients[0]!.broadcast(
        (broadcast) => broadcast.text === stream.text,
        'the streamed reply',
      );
    }

    // A marker through every entry: each process delivers its events in order, so once every client has all
    // markers, any duplicate reply a process had sent has arrived too.
    const markers = await Promise.all(
      entries.map((entry, index) => submit(entry.url, roomId, `marker ${index}`)),
    );
    for (const client of clients) {
      for (const marker of markers) {
        await client.broadcast((broadcast) => broadcast.id === marker, 'a marker');
      }
    }

    // Exactly once: every client saw each user message once and one reply to each.
    for (const client of clients) {
      for (const id of sent) {
        expect(client.broadcasts.filter((broadcast) => broadcast.id === id)).toHaveLength(1);
        expect(client.broadcasts.filter((broadcast) => broadcast.inReplyTo === id)).toHaveLength(1);
      }
      const ids = client.broadcasts.map((broadcast) => broadcast.id);
      expect(new Set(ids).size).toBe(ids.length);
    }
    const stored = await history(entries[0]!.url, roomId);
    for (const id of sent) {
      expect(stored.filter((message) => message.in_reply_to === id)).toHaveLength(1);
    }
  } finally {
    for (const client of clients) client.close();
  }
}

/**
 * Messages to one channel sent alternately through two entries, earlier ones made slower to answer, are
 * answered in the order they were sent.
 */
export async function oneOrderPerChannel(
  first: Entry,
  second: Entry,
  listener: Entry,
): Promise<void> {
  const roomId = randomUUID();
  const watcher = await joinAs(listener.url, listener.transport, roomId, 'watcher');
  try {
    const delays = [600, 450, 300, 150, 0, 0];
    const sent: string[] = [];
    for (const [index, delay] of delays.entries()) {
      const entry = index % 2 === 0 ? first : second;
      sent.push(await postToChannel(entry.url, roomId, `[delay ${delay}] message ${index}`));
    }
    await watcher.broadcast((broadcast) => broadcast.inReplyTo === sent.at(-1), 'the last reply');
    const replies = watcher.broadcasts
      .filter((broadcast) => broadcast.inReplyTo && sent.includes(broadcast.inReplyTo))
      .map((broadcast) => broadcast.inReplyTo);
    expect(replies).toEqual(sent);
  } finally {
    watcher.close();
  }
}
