import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ParleyError } from '@parley/core';
import { z } from 'zod';
import type { DstackGuest } from '../dstack/dstack-guest';
import { createDstackSimulator } from './create-dstack-simulator';

/** Options of {@link startSimulatorServer}: where to listen and which instance to simulate. */
export interface SimulatorServerOptions {
  salt: string;
  /** Listen on this unix socket path (it must not exist yet)... */
  socketPath?: string;
  /** ...or on this TCP port of 127.0.0.1 (0 picks a free one). Default: port 0. */
  port?: number;
  debug?: boolean;
  /** Quote version to issue: 4 (default) or 5 (TD 1.5 report), as TDX 1.5 hosts do. */
  quoteVersion?: 4 | 5;
}

/** A running simulator. */
export interface SimulatorServer {
  /** Socket path or `http://127.0.0.1:<port>`, ready for `DSTACK_SIMULATOR_ENDPOINT`. */
  endpoint: string;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 64 * 1024;
const getKeyBody = z.object({
  path: z.string(),
  purpose: z.string().optional(),
  algorithm: z.string().optional(),
});
const getQuoteBody = z.object({ report_data: z.string().regex(/^(0x)?([0-9a-fA-F]{2})*$/) });

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new ParleyError('PAYLOAD_TOO_LARGE', 'Body too large');
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return text === '' ? {} : JSON.parse(text);
  } catch {
    throw new ParleyError('BAD_REQUEST', 'Body is not JSON');
  }
}

async function dispatch(guest: DstackGuest, method: string, body: unknown): Promise<unknown> {
  switch (method) {
    case 'GetKey':
      return guest.getKey(getKeyBody.parse(body));
    case 'GetQuote': {
      const hex = getQuoteBody.parse(body).report_data.replace(/^0x/, '');
      return guest.getQuote(Buffer.from(hex, 'hex'));
    }
    case 'Info':
      return guest.info();
    default:
      throw new ParleyError('NOT_FOUND', `Unknown method ${method}`);
  }
}

function send(response: ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

/**
 * Serves the built-in simulator over HTTP, on a unix socket or a TCP port, with dstack's routes (`POST
 * /GetKey`, `/GetQuote`, `/Info`, also under `/prpc/`). For tests and for running the server against a
 * separate simulator process.
 *
 * @example
 * await using simulator = await startSimulatorServer({ salt, socketPath });
 */
export async function startSimulatorServer(
  options: SimulatorServerOptions,
): Promise<SimulatorServer & AsyncDisposable> {
  const guest = createDstackSimulator({
    salt: options.salt,
    debug: options.debug,
    quoteVersion: options.quoteVersion,
  });
  const server = createServer((request, response) => {
    const method = (request.url ?? '').replace(/^\/(prpc\/)?/, '').split('?')[0] ?? '';
    if (request.method !== 'POST') {
      send(response, 405, { error: 'Use POST' });
      return;
    }
    readBody(request)
      .then((body) => dispatch(guest, method, body))
      .then((answer) => send(response, 200, answer))
      .catch((error: unknown) => {
        const status = ParleyError.isInstance(error)
          ? error.status
          : error instanceof z.ZodError
            ? 400
            : 500;
        send(response, status, {
          error: status === 500 ? 'internal error' : (error as Error).message,
        });
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    const ready = () => {
      server.off('error', reject);
      resolve();
    };
    if (options.socketPath) server.listen(options.socketPath, ready);
    else server.listen(options.port ?? 0, '127.0.0.1', ready);
  });
  const endpoint =
    options.socketPath ?? `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }));
  return { endpoint, close, [Symbol.asyncDispose]: close };
}
