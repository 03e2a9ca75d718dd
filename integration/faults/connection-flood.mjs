// @ts-check
/**
 * A connection flood, run as its own process (as an attacker's would be): holds COUNT idle sockets to
 * 127.0.0.1:PORT spread over ADDRESSES local addresses (127.0.0.1, 127.0.0.2, …), and reopens each one as soon as
 * the server closes it. Answers 'state' with { held, opened, closed }; stops on 'stop'.
 */
import { connect } from 'node:net';
import process from 'node:process';
import { setImmediate } from 'node:timers';

const [port = 0, count = 0, addresses = 1] = process.argv.slice(2).map(Number);
let opened = 0;
let closed = 0;
let stopping = false;
/** @type {Set<import('node:net').Socket>} */
const sockets = new Set();

/** @param {string} localAddress */
function hold(localAddress) {
  if (stopping) return;
  const socket = connect({ host: '127.0.0.1', port, localAddress });
  sockets.add(socket);
  socket.on('connect', () => {
    opened += 1;
  });
  socket.on('error', () => undefined);
  // Read (and drop) what the server sends, so that its closing the socket is seen at once.
  socket.resume();
  socket.on('close', () => {
    sockets.delete(socket);
    closed += 1;
    // Reopen what the server closed, at once.
    setImmediate(() => hold(localAddress));
  });
}

for (let index = 0; index < count; index += 1) {
  hold(`127.0.0.${1 + (index % addresses)}`);
}

/** @param {unknown} message */
function send(message, then = () => undefined) {
  process.send?.(message, undefined, undefined, then);
}

process.on('message', (message) => {
  if (message === 'state') send({ held: sockets.size, opened, closed });
  if (message === 'stop') {
    stopping = true;
    for (const socket of sockets) socket.destroy();
    send({ stopped: true }, () => process.exit(0));
  }
});
