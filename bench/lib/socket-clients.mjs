// Child process: many socket.io clients (websocket transport, one connection each), kept off the server's
// event loop. Roles:
//   idle          connect and do nothing (memory per connection);
//   receive       join the room and time every `messageBroadcast` whose text is `bench:<hrtime ns>` (the
//                 submitter writes its send time into the message; hrtime is one monotonic clock for every
//                 process of the machine);
//   reply         join the room; client 0 sends messages one by one and every client times the agent's reply
//                 broadcast from the moment it was sent.
import { randomUUID } from 'node:crypto';
import { io } from 'socket.io-client';
import { childConfig } from './child.mjs';
import { cpuMark, cpuPercentSince, msSince } from './stats.mjs';

const ROOM_JOINING = 1;
const SEND_MESSAGE = 2;
const CONNECT_BATCH = 100;

const config = childConfig();
const { url, clients: count, role, roomId } = config;
const sockets = [];
const latencies = [];

function connect(index) {
  return new Promise((resolve, reject) => {
    const socket = io(url, { transports: ['websocket'], forceNew: true, reconnection: false });
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', (error) => reject(new Error(`client ${index}: ${error.message}`)));
  });
}

function join(socket, index) {
  return new Promise((resolve, reject) => {
    const payload = { roomId, entityId: `bench-client-${config.offset + index}` };
    socket.emit('message', { type: ROOM_JOINING, payload }, (ack) =>
      ack?.status === 'ok' ? resolve() : reject(new Error(JSON.stringify(ack))),
    );
  });
}

for (let start = 0; start < count; start += CONNECT_BATCH) {
  const batch = [];
  for (let index = start; index < Math.min(count, start + CONNECT_BATCH); index++) {
    batch.push(connect(index));
  }
  sockets.push(...(await Promise.all(batch)));
}
if (role !== 'idle') await Promise.all(sockets.map((socket, index) => join(socket, index)));

if (role === 'receive') {
  for (const socket of sockets) {
    socket.on('messageBroadcast', (message) => {
      if (message.text.startsWith('bench:')) {
        latencies.push(Number(process.hrtime.bigint() - BigInt(message.text.slice(6))) / 1e6);
      }
    });
  }
}

const sentAt = new Map();
let expected = 0;
let onAllReceived;
if (role === 'reply') {
  for (const socket of sockets) {
    socket.on('messageBroadcast', (message) => {
      const start = message.inReplyTo && sentAt.get(message.inReplyTo);
      if (!start) return;
      latencies.push(msSince(start));
      if (--expected === 0) onAllReceived?.();
    });
  }
}

async function sendReplies({ durationMs, maxMessages, intervalMs }) {
  latencies.length = 0;
  const mark = cpuMark();
  const sender = sockets[0];
  const started = process.hrtime.bigint();
  let sent = 0;
  let missing = 0;
  let errors = 0;
  while (sent < maxMessages && msSince(started) < durationMs) {
    const messageId = randomUUID();
    const start = process.hrtime.bigint();
    sentAt.set(messageId, start);
    expected = sockets.length;
    let timer;
    const received = new Promise((resolve) => {
      onAllReceived = resolve;
      timer = setTimeout(resolve, 5_000);
    });
    sender.emit(
      'message',
      {
        type: SEND_MESSAGE,
        payload: {
          // The entity the sender joined the room as: a socket may only speak as that entity.
          senderId: `bench-client-${config.offset}`,
          senderName: 'Bench',
          message: 'Hello, how are you today?',
          roomId,
          messageId,
        },
      },
      (ack) => {
        if (ack?.status !== 'ok') errors += 1;
      },
    );
    sent += 1;
    await received;
    clearTimeout(timer);
    missing += expected;
    sentAt.delete(messageId);
    const wait = intervalMs - msSince(start);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
  return { sent, missing, errors, elapsedMs: msSince(started), clientCpu: cpuPercentSince(mark) };
}

process.on('message', (message) => {
  if (message.type === 'send-replies') {
    void sendReplies(message).then((outcome) =>
      process.send({ type: 'result', latencies, ...outcome }),
    );
  }
  if (message.type === 'report') {
    // CPU since the previous report, so that the runner sees what the clients used while it measured.
    process.send({
      type: 'report',
      latencies: latencies.splice(0),
      clientCpu: cpuPercentSince(mark),
    });
    mark = cpuMark();
  }
  if (message.type === 'stop') {
    for (const socket of sockets) socket.disconnect();
    process.exit(0);
  }
});
let mark = cpuMark();
process.send({ type: 'ready', connected: sockets.length });
