/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-assignment --
   answers are read as the wire gives them; each test names the fields it checks. */
import { once } from 'node:events';
import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** Receivers and helpers of the webhook tests: real HTTP receivers on loopback, and a client of the API. */

/** A receiver on loopback that answers each request with what `answer` says, and keeps what it got. */
export interface Receiver {
  url: string;
  received: { id: string; headers: IncomingMessage['headers']; body: string; status: number }[];
  /** Most requests it was answering at once. */
  maxConcurrent: number;
  close(): Promise<void>;
}

/** Starts a {@link Receiver}; `answer` gets the attempt's number for its `webhook-id` and the body. */
export async function startReceiver(
  answer: (
    attemptOfId: number,
    body: string,
  ) => { status: number; headers?: Record<string, string>; delayMs?: number; body?: string },
): Promise<Receiver> {
  const attempts = new Map<string, number>();
  let active = 0;
  const receiver: Receiver = {
    url: '',
    received: [],
    maxConcurrent: 0,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server: Server = createHttpServer((request, response) => {
    active += 1;
    receiver.maxConcurrent = Math.max(receiver.maxConcurrent, active);
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const id = String(request.headers['webhook-id']);
      const attempt = (attempts.get(id) ?? 0) + 1;
      attempts.set(id, attempt);
      const reply = answer(attempt, body);
      setTimeout(() => {
        receiver.received.push({ id, headers: request.headers, body, status: reply.status });
        active -= 1;
        response.writeHead(reply.status, reply.headers).end(reply.body ?? 'ok');
      }, reply.delayMs ?? 0);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return receiver;
}

/** A receiver that keeps every attempt waiting, counting the connections it got and those the sender closed. */
export interface StallingReceiver {
  url: string;
  /** Connections opened to it. */
  opened: number;
  /** Connections the sender closed (an attempt that gave up), not counting those `close` ends. */
  closedBySender: number;
  /** Ends every connection and stops listening. */
  close(): Promise<void>;
}

/**
 * Starts a receiver that never answers (`hang`: it reads the request and says nothing) or that sends its
 * answer's head one byte every `byteEveryMs` (`trickle-headers`), or sends its head at once and then its
 * 1 MB body one byte every `byteEveryMs` (`trickle-body`). Plain TCP, so nothing but the sender ends it.
 */
export async function startStallingReceiver(
  kind: 'hang' | 'trickle-headers' | 'trickle-body',
  byteEveryMs = 1000,
): Promise<StallingReceiver> {
  const sockets = new Set<Socket>();
  let closing = false;
  const head = `HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 1000000\r\nx-padding: ${'p'.repeat(200)}\r\n\r\n`;
  const receiver: StallingReceiver = {
    url: '',
    opened: 0,
    closedBySender: 0,
    close: () => {
      closing = true;
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  const server = createTcpServer((socket) => {
    receiver.opened += 1;
    sockets.add(socket);
    socket.on('data', () => undefined);
    socket.on('error', () => undefined);
    let sent = 0;
    if (kind === 'trickle-body') socket.write(head);
    const trickle =
      kind === 'hang'
        ? undefined
        : setInterval(() => {
            socket.write(kind === 'trickle-headers' ? (head[sent] ?? '') : 'x');
            sent += 1;
          }, byteEveryMs);
    socket.on('close', () => {
      clearInterval(trickle);
      sockets.delete(socket);
      if (!closing) receiver.closedBySender += 1;
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return receiver;
}

/** The event a received request carries, verified by the standardwebhooks library with `secret`. */
export function verified<T>(secret: string, request: Receiver['received'][number]): T {
  return new Webhook(secret).verify(request.body, {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  }) as T;
}

/** Reads `what` every 20 ms until `done`; throws after `giveUpMs` (default 60 s) with the last value. */
export async function until<T>(
  what: () => T | Promise<T>,
  done: (value: T) => boolean,
  giveUpMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + giveUpMs;
  for (;;) {
    const value = await what();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A client of the server's API: any call, a subscription, a message answered in `sync` mode. */
export function client(url: string) {
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as any };
  };
  return {
    call,
    subscribe: (body: unknown) => call('POST', '/api/webhooks', body),
    say: (channelId: string, text: string) =>
      call('POST', `/api/messaging/channels/${channelId}/messages`, {
        text,
        entityId: 'user-1',
        mode: 'sync',
      }),
  };
}
