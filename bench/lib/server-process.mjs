// Child process: the Parley server under test, alone on its event loop so that load generators and the
// model server do not steal its time. Run with --expose-gc so that memory can be read after a collection.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { createRequire } from 'node:module';
import { writeHeapSnapshot } from 'node:v8';
import {
  createLogger,
  createOpenAICompatibleModel,
  createServer,
  parseTeeConfig,
  startTracing,
} from '@parley/server';
import { childConfig } from './child.mjs';

const {
  modelUrl,
  dataDir,
  databaseUrl,
  plugins: pluginNames = [],
  tracing,
  tee,
  serverOptions = {},
} = childConfig();
// `tracing`: an OTLP endpoint; every trace is kept and exported there (the `tracing` scenario). `absent`: no
// tracing code on the reply's path at all (`traceContext: false`), the baseline tracing off is compared with.
const traceless = tracing === 'absent';
const traces =
  tracing && !traceless
    ? startTracing({
        OTEL_TRACES_EXPORTER: 'otlp',
        OTEL_EXPORTER_OTLP_ENDPOINT: tracing,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
        OTEL_TRACES_SAMPLER: 'always_on',
      })
    : undefined;
// Plugins by name (a child's config is JSON): `echo` is the `tool-reply` scenario's ECHO action.
const plugins = [];
if (pluginNames.includes('echo')) plugins.push((await import('./echo-plugin.mjs')).echoPlugin);
if (pluginNames.includes('echo-approval')) {
  plugins.push((await import('./echo-plugin.mjs')).approvalEchoPlugin);
}

// Database statements, counted at the pg driver the server uses (each is one round trip to PostgreSQL), by the
// statement's first words, so a scenario can print statements per reply and which they are.
const statements = new Map();
if (databaseUrl) {
  const pg = createRequire(import.meta.resolve('@parley/server'))('pg');
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function countedQuery(config, ...rest) {
    const text = typeof config === 'string' ? config : config?.text;
    if (typeof text === 'string') {
      const kind = text.replace(/\s+/g, ' ').trim().slice(0, 48);
      statements.set(kind, (statements.get(kind) ?? 0) + 1);
    }
    return query.call(this, config, ...rest);
  };
}
const server = createServer({
  port: 0,
  logger: createLogger('warn'),
  database: databaseUrl ? { kind: 'postgres', url: databaseUrl } : { kind: 'pglite', dataDir },
  // BENCH_MODEL_CLIENT=ai-sdk replaces fetch, which sends the model call through the AI SDK's provider instead
  // of the direct node:http path: the two can be compared in one build.
  model: createOpenAICompatibleModel({
    baseUrl: modelUrl,
    model: 'fake-model',
    ...(process.env.BENCH_MODEL_CLIENT === 'ai-sdk'
      ? { fetch: (input, init) => globalThis.fetch(input, init) }
      : {}),
  }),
  ...(plugins.length > 0 ? { plugins } : {}),
  // Settings from the bench's own environment must not change what is measured.
  env: {},
  // The bench is one client address generating the load of many: per-address limits would measure themselves.
  rateLimit: false,
  socketHandshakeLimit: { burst: 1_000_000, perSecond: 1_000_000 },
  ...(traces ? { tracerProvider: traces.tracerProvider } : {}),
  ...(traceless ? { traceContext: false } : {}),
  // `tee`: the built-in TEE simulator, so every stored reply is signed (the `receipts` scenario).
  ...(tee
    ? { tee: parseTeeConfig({ TEE_MODE: 'LOCAL', WALLET_SECRET_SALT: 'bench receipts salt' }) }
    : {}),
  // A scenario's own options (JSON): the identity settings of `identity-cost`, memory off in `memory-cost`.
  ...serverOptions,
});
const { url } = await server.start();

function usage() {
  return {
    cpu: process.cpuUsage(),
    memory: process.memoryUsage(),
    maxRssKb: process.resourceUsage().maxRSS,
    statements: Object.fromEntries(statements),
  };
}

async function collectedMemory() {
  // Two passes with a pause between: weak references and finalizers free more on the second.
  globalThis.gc?.();
  await new Promise((resolve) => setTimeout(resolve, 100));
  globalThis.gc?.();
  return process.memoryUsage();
}

// The profiler runs only while a scenario measures, so start-up and migrations stay out of the profile.
const inspector = new Session();

async function startProfile() {
  inspector.connect();
  await inspector.post('Profiler.enable');
  await inspector.post('Profiler.setSamplingInterval', { interval: 200 });
  await inspector.post('Profiler.start');
}

async function stopProfile(file) {
  const { profile } = await inspector.post('Profiler.stop');
  inspector.disconnect();
  writeFileSync(file, JSON.stringify(profile));
}

process.on('message', (message) => {
  if (message.type === 'profile-start') {
    void startProfile().then(() => process.send({ type: 'profile-started' }));
  }
  if (message.type === 'profile-stop') {
    void stopProfile(message.file).then(() => process.send({ type: 'profile-stopped' }));
  }
  if (message.type === 'usage') process.send({ type: 'usage', ...usage() });
  if (message.type === 'gc-memory') {
    void collectedMemory().then((memory) => process.send({ type: 'gc-memory', memory }));
  }
  if (message.type === 'heap-snapshot') {
    void collectedMemory().then(() =>
      process.send({ type: 'heap-snapshot', file: writeHeapSnapshot(message.file) }),
    );
  }
  if (message.type === 'stop') void server.stop().finally(() => process.exit(0));
});
process.send({ type: 'ready', url, agentId: server.agents.defaultAgent.agentId });
