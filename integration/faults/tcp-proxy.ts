import { type AddressInfo, type Server, type Socket, connect, createServer } from 'node:net';

/**
 * A loopback TCP proxy a test can cut (refuse and drop every connection), blackhole (keep every connection
 * open and accept new ones, but forward nothing either way: a database that stopped answering) and restore,
 * on the same port.
 */
export interface TcpProxy extends AsyncDisposable {
  readonly port: number;
  /** Drops every open connection and refuses new ones until `restore()`. */
  cut(): Promise<void>;
  /**
   * Stops forwarding: open connections stay open but carry nothing, new ones are accepted and carry nothing,
   * until `restore()` (which drops them: what was sent meanwhile is lost, as on a network that failed).
   */
  blackhole(): void;
  /** Accepts and forwards connections again on the same port. */
  restore(): Promise<void>;
}

/** Starts a proxy on 127.0.0.1 (a free port) to `target`. */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<Socket>();
  /** Connections that forwarded nothing since the blackhole began; dropped by `restore()`. */
  const held = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  let blackholed = false;

  function hold(socket: Socket) {
    held.add(socket);
    socket.on('close', () => held.delete(socket));
    socket.on('error', () => socket.destroy());
    socket.on('data', () => undefined); // read and dropped
  }

  async function listen() {
    const next = createServer((client) => {
      if (blackholed) {
        hold(client);
        return;
      }
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
    for (const socket of [...open, ...held]) socket.destroy();
    await closed;
  }

  function blackhole() {
    blackholed = true;
    for (const socket of open) {
      socket.unpipe();
      socket.removeAllListeners('data');
      hold(socket);
    }
  }

  async function restore() {
    blackholed = false;
    for (const socket of held) socket.destroy();
    if (!server) await listen();
  }

  await listen();
  return {
    get port() {
      return port;
    },
    cut,
    blackhole,
    restore,
    [Symbol.asyncDispose]: cut,
  };
}
