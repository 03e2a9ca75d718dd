import { type AddressInfo, type Server, type Socket, connect, createServer } from 'node:net';

/** A loopback TCP proxy a test can cut (refuse and drop every connection) and restore, on the same port. */
export interface TcpProxy extends AsyncDisposable {
  readonly port: number;
  /** Drops every open connection and refuses new ones until `restore()`. */
  cut(): Promise<void>;
  /** Accepts connections again on the same port. */
  restore(): Promise<void>;
}

/** Starts a proxy on 127.0.0.1 (a free port) to `target`. */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;

  async function listen() {
    const next = createServer((client) => {
      const upstream = connect(target.port, target.host);
      for (const socket of [client, upstream]) {
        open.add(socket);
        socket.on('close', () => open.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      next.once('error', reject);
      next.listen(port, '127.0.0.1', () => resolve());
    });
    port = (next.address() as AddressInfo).port;
    server = next;
  }

  async function cut() {
    const closing = server;
    server = undefined;
    // close() resolves only once every connection has ended, so they are dropped first.
    const closed = closing && new Promise<void>((resolve) => closing.close(() => resolve()));
    for (const socket of open) socket.destroy();
    await closed;
  }

  await listen();
  return {
    get port() {
      return port;
    },
    cut,
    restore: listen,
    [Symbol.asyncDispose]: cut,
  };
}
