// The Parley benchmark: `node bench/run.mjs [scenario…] [--duration=10] [--profile] [--client-processes=2]`.
// Starts the fake model server and, per scenario, a fresh Parley server, each in its own process; drives
// them with wrk or client processes; prints figures next to their targets. It asserts nothing: the exit
// code says whether the bench ran, not whether a target was met.
import { mkdirSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startModelServer } from './lib/harness.mjs';
import { formatTable } from './lib/table.mjs';
import { hasWrk } from './lib/wrk.mjs';
import conversations from './scenarios/conversations.mjs';
import firstChunk from './scenarios/first-chunk.mjs';
import socketBroadcast from './scenarios/socket-broadcast.mjs';
import socketMemory from './scenarios/socket-memory.mjs';
import socketReply from './scenarios/socket-reply.mjs';
import submit from './scenarios/submit.mjs';
import sync from './scenarios/sync.mjs';

const SCENARIOS = [
  sync,
  conversations,
  submit,
  firstChunk,
  socketReply,
  socketBroadcast,
  socketMemory,
];

const USAGE = `usage: node bench/run.mjs [scenario…] [options]

scenarios (default: all): ${SCENARIOS.map((scenario) => scenario.id).join(', ')}

options:
  --duration=S           seconds of measurement per scenario (default 10)
  --profile[=DIR]        write a V8 CPU profile of the server per scenario (default bench/profiles)
  --client-processes=N   processes the 1,000 socket clients are spread over (default 2)
`;

function parseArgs(argv) {
  const options = { ids: [], durationS: 10, profileDir: undefined, clientProcesses: 2 };
  for (const arg of argv) {
    const [name, value] = arg.split('=', 2);
    if (name === '--help' || name === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else if (name === '--duration') options.durationS = Number(value);
    else if (name === '--client-processes') options.clientProcesses = Number(value);
    else if (name === '--profile') {
      options.profileDir = value ?? fileURLToPath(new URL('./profiles', import.meta.url));
    } else if (SCENARIOS.some((scenario) => scenario.id === arg)) options.ids.push(arg);
    else {
      console.error(`unknown argument ${arg}\n\n${USAGE}`);
      process.exit(2);
    }
  }
  return options;
}

const options = parseArgs(process.argv.slice(2));
const selected = options.ids.length
  ? SCENARIOS.filter((scenario) => options.ids.includes(scenario.id))
  : SCENARIOS;
const wrk = hasWrk();
if (!wrk && selected.some((scenario) => scenario.needsWrk)) {
  console.log(
    'wrk is not installed: the wrk scenarios are skipped. Install it with `apt-get install -y wrk` (Debian/Ubuntu) or `brew install wrk`.\n',
  );
}
if (options.profileDir) mkdirSync(options.profileDir, { recursive: true });

console.log(
  `Parley bench: ${new Date().toISOString()}, Node ${process.version}, ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown CPU'}), ${options.durationS} s per scenario\n`,
);

const model = await startModelServer();
const context = { ...options, model };
const results = [];
try {
  for (const scenario of selected) {
    if (scenario.needsWrk && !wrk) {
      results.push({ title: scenario.title, error: 'skipped: wrk is not installed' });
      continue;
    }
    process.stdout.write(`running ${scenario.title} … `);
    const started = Date.now();
    try {
      const { rows, notes } = await scenario.run(context);
      results.push({ title: scenario.title, rows, notes });
      console.log(`${((Date.now() - started) / 1000).toFixed(0)} s; ${notes.join('; ')}`);
    } catch (error) {
      results.push({ title: scenario.title, error: `failed: ${error.message.split('\n')[0]}` });
      console.log(`failed:\n${error.stack}`);
    }
  }
} finally {
  await model.stop();
}

console.log(`\n${formatTable(results)}\n`);
console.log(
  'elizaOS figures are those of the issue, for context. Figures from a shared machine are noisy: compare runs, not single numbers.',
);
if (options.profileDir) console.log(`CPU profiles of the server: ${options.profileDir}`);
