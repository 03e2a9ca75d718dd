// A connection flood, run as its own process (as an attacker's would be): holds `count` idle sockets to
// 127.0.0.1:PORT spread over `addresses` local addresses (127.0.0.1, 127.0.0.2, …), and reopens each one as
// soon as the server closes it. Reports { held, opened, closed } to its parent on request; stops on 'stop'.
import { connect } from 'node:net';

const [port, count, addresses] = process.argv.slice(2).map(Number);
let opened = 0;
let closed = 0;
let stopping = false;
const sockets = new Set();

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

process.on('message', (message) => {
  if (message === 'state') process.send({ held: sockets.size, opened, closed });
  if (message === 'stop') {
    stopping = true;
    for (const socket of sockets) socket.destroy();
    process.send({ stopped: true }, () => process.exit(0));
  }
});
