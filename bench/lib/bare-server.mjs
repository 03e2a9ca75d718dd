// Child process: the limit Parley is measured against. A bare hono server on @hono/node-server with socket.io
// on the same port, doing the same HTTP round trips and socket broadcasts as Parley but nothing else: no
// validation, no storage, no model, no agent. Whatever Parley does beyond this is its own cost.
//
// With `dataDir` or `databaseUrl` it is the second limit, the durable one: the same server that also writes what
// a minimal message server must, into the same database Parley uses (same schema, same PGlite worker or
// PostgreSQL pool, the same sync before answering): one INSERT per message (its channel created in the same
// statement), and for a sync reply the user's message and the reply in one INSERT. Between the two limits is
// what the database costs; beyond the durable one is what Parley adds.
import { randomUUID } from 'node:crypto';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { Server } from 'socket.io';
import { childConfig } from './child.mjs';

const ROOM_JOINING = 1;
const SEND_MESSAGE = 2;
/** The text the bench model answers (lib/harness.mjs), so that a sync body is as long as Parley's. */
const REPLY_TEXT = 'Hello! I am the benchmark model, and I always answer at once.';
/** Parley's one message server (DEFAULT_SERVER_ID of @parley/core). */
const SERVER_ID = '00000000-0000-0000-0000-000000000000';

const { port = 0, dataDir, databaseUrl } = childConfig();
const app = new Hono();
let io;

const database =
  dataDir || databaseUrl
    ? // Imported only for the durable limit: the plain bare server's memory stays hono and socket.io alone.
      (await import('@parley/server/testing')).createDatabase(
        databaseUrl ? { kind: 'postgres', url: databaseUrl } : { kind: 'pglite', dataDir },
      )
    : undefined;
await database?.migrate();

/** Stores messages of one channel durably: one statement (the channel created if new), then the sync. */
async function store(channelId, messages) {
  if (!database) return;
  const now = new Date();
  await database.db
    .with('channel', (db) =>
      db
        .insertInto('channels')
        .values({ id: channelId, server_id: SERVER_ID, created_at: now, updated_at: now })
        .onConflict((conflict) => conflict.doNothing()),
    )
    .insertInto('messages')
    .values(
      messages.map((message) => ({
        id: message.id,
        channel_id: channelId,
        server_id: SERVER_ID,
        author_id: message.author_id,
        author_name: message.author_id,
        content: message.content,
        source_type: 'api',
        metadata: '{}',
        created_at: message.created_at,
      })),
    )
    .execute();
  await database.sync();
}

function stored(fields) {
  return {
    id: randomUUID(),
    created_at: new Date().toISOString(),
    source_type: 'api',
    metadata: {},
    ...fields,
  };
}

// Submit: parse the body, answer 201 with the stored-message shape, broadcast it to its room.
app.post('/api/messaging/submit', async (c) => {
  const body = await c.req.json();
  const message = stored({
    channel_id: body.channel_id,
    author_id: body.author_id,
    content: body.content,
  });
  await store(body.channel_id, [message]);
  io.to(body.channel_id).emit('messageBroadcast', {
    id: message.id,
    roomId: body.channel_id,
    senderId: body.author_id,
    text: body.content,
  });
  return c.json({ success: true, data: message }, 201);
});

// A channel message in mode sync: parse the body, answer the sync shape with the model's text.
app.post('/api/messaging/channels/:channelId/messages', async (c) => {
  const body = await c.req.json();
  const channelId = c.req.param('channelId');
  const userMessage = stored({
    channel_id: channelId,
    author_id: body.entityId,
    content: body.text,
  });
  await store(channelId, [
    userMessage,
    stored({ channel_id: channelId, author_id: 'agent', content: REPLY_TEXT }),
  ]);
  return c.json({
    success: true,
    userMessage,
    agentResponse: { text: REPLY_TEXT, actions: ['REPLY'] },
    replyId: randomUUID(),
  });
});

const server = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' });
io = new Server(server, { transports: ['websocket'] });
io.on('connection', (socket) => {
  socket.on('message', (envelope, ack) => {
    const payload = envelope?.payload ?? {};
    if (envelope?.type === ROOM_JOINING) {
      socket.join(payload.roomId);
      ack?.({ status: 'ok' });
      return;
    }
    if (envelope?.type === SEND_MESSAGE) {
      ack?.({ status: 'ok' });
      // The same fan-out as an agent's answer: one broadcast to the room, in reply to the message.
      io.to(payload.roomId).emit('messageBroadcast', {
        id: randomUUID(),
        roomId: payload.roomId,
        senderId: 'agent',
        text: REPLY_TEXT,
        inReplyTo: payload.messageId,
      });
    }
  });
});

server.once('listening', () => {
  const address = server.address();
  process.send({ type: 'ready', url: `http://127.0.0.1:${address.port}` });
});

process.on('message', (message) => {
  if (message.type === 'usage') {
    process.send({
      type: 'usage',
      cpu: process.cpuUsage(),
      memory: process.memoryUsage(),
      maxRssKb: process.resourceUsage().maxRSS,
    });
  }
  if (message.type === 'gc-memory') {
    globalThis.gc?.();
    setTimeout(() => {
      globalThis.gc?.();
      process.send({ type: 'gc-memory', memory: process.memoryUsage() });
    }, 100);
  }
  if (message.type === 'stop') {
    io.close();
    server.close(
      () => void (database ? database.close() : Promise.resolve()).finally(() => process.exit(0)),
    );
    setTimeout(() => process.exit(0), 2_000).unref();
  }
});
