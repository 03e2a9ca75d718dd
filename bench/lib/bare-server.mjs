// Child process: the limit Parley is measured against. A bare hono server on @hono/node-server with socket.io
// on the same port, doing the same HTTP round trips and socket broadcasts as Parley but nothing else: no
// validation, no storage, no model, no agent. Whatever Parley does beyond this is its own cost.
import { randomUUID } from 'node:crypto';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { Server } from 'socket.io';
import { childConfig } from './child.mjs';

const ROOM_JOINING = 1;
const SEND_MESSAGE = 2;
/** The text the bench model answers (lib/harness.mjs), so that a sync body is as long as Parley's. */
const REPLY_TEXT = 'Hello! I am the benchmark model, and I always answer at once.';

const { port = 0 } = childConfig();
const app = new Hono();
let io;

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
    server.close(() => process.exit(0));
    setTimeout(() => process.exit(0), 2_000).unref();
  }
});
