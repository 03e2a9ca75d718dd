// The Parley benchmark: `node bench/run.mjs [scenario…] [--duration=10] [--profile] [--client-processes=2]`.
// Starts the fake model server and, per scenario, a fresh Parley server and a bare hono + socket.io server
// (the limit), each in its own process; drives them with wrk or client processes; prints figures next to
// their limits and targets and writes them to a JSON file. It asserts nothing: the exit code says whether the
// bench ran, not whether a target was met.
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { postgresUnavailable, startModelServer } from './lib/harness.mjs';
import { formatTable, resultsJson } from './lib/table.mjs';
import { hasWrk } from './lib/wrk.mjs';
import { conversations, conversationsPostgres } from './scenarios/conversations.mjs';
import extractors from './scenarios/extractors.mjs';
import firstChunk from './scenarios/first-chunk.mjs';
import memory from './scenarios/memory.mjs';
import socketBroadcast from './scenarios/socket-broadcast.mjs';
import socketMemory from './scenarios/socket-memory.mjs';
import socketReply from './scenarios/socket-reply.mjs';
import { submit, submitPostgres } from './scenarios/submit.mjs';
import sync from './scenarios/sync.mjs';
import toolReply from './scenarios/tool-reply.mjs';
import tracing from './scenarios/tracing.mjs';
import approvalReply from './scenarios/approval-reply.mjs';
import { receipts, receiptsPostgres } from './scenarios/receipts.mjs';
import openaiReply from './scenarios/openai-reply.mjs';
import identityCost from './scenarios/identity-cost.mjs';
import memoryCost from './scenarios/memory-cost.mjs';
import { memoryIngest, memorySearch } from './scenarios/memory-store.mjs';

const SCENARIOS = [
  sync,
  conversations,
  conversationsPostgres,
  submit,
  submitPostgres,
  firstChunk,
  socketReply,
  socketBroadcast,
  socketMemory,
  memory,
  extractors,
  toolReply,
  tracing,
  approvalReply,
  receipts,
  receiptsPostgres,
  openaiReply,
  identityCost,
  memoryCost,
  memorySearch,
  memoryIngest,
];

const USAGE = `usage: node bench/run.mjs [scenario…] [options]

scenarios (default: all): ${SCENARIOS.map((scenario) => scenario.id).join(', ')}

options:
  --duration=S           seconds of measurement per scenario (default 10)
  --profile[=DIR]        write a V8 CPU profile of the server per scenario (default bench/profiles)
  --client-processes=N   processes the 1,000 socket clients are spread over (default 2)
  --rest=S               seconds a server sits idle before its memory at rest is read (default 15)
  --after-load=S         seconds after load before the settled memory is read (default 60)
  --json=FILE            where the results go as JSON (default bench/results/latest.json)
`;

function parseArgs(argv) {
  const options = {
    ids: [],
    durationS: 10,
    profileDir: undefined,
    clientProcesses: 2,
    restS: 15,
    afterLoadS: 60,
    jsonFile: fileURLToPath(new URL('./results/latest.json', import.meta.url)),
  };
  for (const arg of argv) {
    const [name, value] = arg.split('=', 2);
    if (name === '--help' || name === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else if (name === '--duration') options.durationS = Number(value);
    else if (name === '--client-processes') options.clientProcesses = Number(value);
    else if (name === '--rest') options.restS = Number(value);
    else if (name === '--after-load') options.afterLoadS = Number(value);
    else if (name === '--json') options.jsonFile = value;
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
const noPostgres = selected.some((scenario) => scenario.needsPostgres)
  ? await postgresUnavailable()
  : undefined;
if (noPostgres) console.log(`${noPostgres}: the PostgreSQL variants are skipped.\n`);
if (options.profileDir) mkdirSync(options.profileDir, { recursive: true });

const machine = {
  date: new Date().toISOString(),
  node: process.version,
  cores: availableParallelism(),
  cpu: cpus()[0]?.model ?? 'unknown CPU',
  memoryGb: Math.round(totalmem() / 1024 ** 3),
  loadAverage: loadavg()[0],
};
console.log(
  `Parley bench: ${machine.date}, Node ${machine.node}, ${machine.cores} cores (${machine.cpu}), load average ${machine.loadAverage.toFixed(2)}, ${options.durationS} s per scenario\n`,
);
const benchStarted = Date.now();

const model = await startModelServer();
const context = { ...options, model };
const results = [];
try {
  for (const scenario of selected) {
    if (scenario.needsWrk && !wrk) {
      results.push({
        id: scenario.id,
        title: scenario.title,
        error: 'skipped: wrk is not installed',
      });
      continue;
    }
    if (scenario.needsPostgres && noPostgres) {
      results.push({ id: scenario.id, title: scenario.title, error: 'skipped: no PostgreSQL' });
      continue;
    }
    process.stdout.write(`running ${scenario.title} … `);
    const started = Date.now();
    try {
      const { rows, notes } = await scenario.run(context);
      results.push({ id: scenario.id, title: scenario.title, rows, notes });
      console.log(`${((Date.now() - started) / 1000).toFixed(0)} s; ${notes.join('; ')}`);
    } catch (error) {
      results.push({
        id: scenario.id,
        title: scenario.title,
        error: `failed: ${error.message.split('\n')[0]}`,
      });
      console.log(`failed:\n${error.stack}`);
    }
  }
} finally {
  await model.stop();
}

console.log(`\n${formatTable(results)}\n`);
console.log(
  'limit: the bare hono + socket.io server doing the same round trip in the same run (memory after load: the server at rest; tool reply: a plain reply of the same server); ratio = Parley / limit.',
);
console.log(
  'elizaOS figures are those of the issue, for context. Timings from a shared machine are noisy: compare ratios from one run, not single numbers.',
);
const elapsedS = Math.round((Date.now() - benchStarted) / 1000);
mkdirSync(dirname(options.jsonFile), { recursive: true });
writeFileSync(
  options.jsonFile,
  `${JSON.stringify({ machine: { ...machine, loadAverageAtEnd: loadavg()[0] }, options: { durationS: options.durationS, restS: options.restS, afterLoadS: options.afterLoadS }, elapsedS, results: resultsJson(results) }, null, 2)}\n`,
);
console.log(`${elapsedS} s; results written to ${options.jsonFile}`);
if (options.profileDir) console.log(`CPU profiles of the server: ${options.profileDir}`);
