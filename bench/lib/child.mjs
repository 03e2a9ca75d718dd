import { fork } from 'node:child_process';

const running = new Set();

// A child outliving the runner would hold ports and CPU; the runner's own exit takes its children with it.
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => process.exit(130));
}

/**
 * Forks a Node child with an IPC channel. The child gets `config` as JSON in argv[2] and talks in messages
 * `{ type, ...fields }`; `next(type)` resolves with the next message of that type.
 */
export function startChild(script, config, { execArgv = [] } = {}) {
  const child = fork(script, [JSON.stringify(config)], {
    execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  running.add(child);
  const inbox = [];
  const waiting = [];
  let exitError;
  child.on('message', (message) => {
    const index = waiting.findIndex((wait) => wait.type === message.type);
    if (index === -1) {
      inbox.push(message);
      return;
    }
    const [wait] = waiting.splice(index, 1);
    clearTimeout(wait.timer);
    wait.resolve(message);
  });
  const exited = new Promise((resolve) => {
    // 'close', not 'exit': a child that sends its result and exits at once may be reported as exited before its
    // last messages were delivered; 'close' comes after the IPC channel is drained.
    child.once('close', (code, signal) => {
      running.delete(child);
      exitError = new Error(`${script} exited (code ${code}, signal ${signal})`);
      for (const wait of waiting.splice(0)) {
        clearTimeout(wait.timer);
        wait.reject(exitError);
      }
      resolve({ code, signal });
    });
  });

  function next(type, timeoutMs = 60_000) {
    const index = inbox.findIndex((message) => message.type === type);
    if (index !== -1) return Promise.resolve(inbox.splice(index, 1)[0]);
    if (exitError) return Promise.reject(exitError);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        waiting.splice(waiting.indexOf(wait), 1);
        reject(new Error(`${script}: no '${type}' message within ${timeoutMs} ms`));
      }, timeoutMs);
      const wait = { type, resolve, reject, timer };
      waiting.push(wait);
    });
  }

  /** Sends a message and waits for the answer of type `reply`. */
  function ask(message, reply, timeoutMs) {
    const answer = next(reply, timeoutMs);
    child.send(message);
    return answer;
  }

  /** Asks the child to stop, and kills it if it has not exited within `graceMs`. */
  async function stop(graceMs = 15_000) {
    if (child.exitCode !== null || child.signalCode !== null) return exited;
    if (child.connected) child.send({ type: 'stop' });
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    const result = await exited;
    clearTimeout(timer);
    return result;
  }

  return { pid: child.pid, next, ask, send: (message) => child.send(message), stop, exited };
}

/** The config a child was started with. */
export function childConfig() {
  return JSON.parse(process.argv[2] ?? '{}');
}
