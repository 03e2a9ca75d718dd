import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { measureCpu, startModelServer, withServer } from '../lib/harness.mjs';
import { ECHO_REQUEST } from '../lib/echo-upstream.mjs';
import { alternateRounds, cpuRatio, repliesNote, variantFigures } from '../lib/variants.mjs';

/** Measured phases per variant, alternated (without, with, without, with). */
const ROUNDS = 4;

/** The target (issue 43): a reply whose receipt is signed and chained costs at most 1.1× one without. */
const MAX_RATIO = 1.1;

/** `parley-tee`'s program, resolved through the server package that depends on `@parley/tee`. */
const CLI = join(
  dirname(createRequire(import.meta.resolve('@parley/server')).resolve('@parley/tee/package.json')),
  'dist',
  'cli.js',
);

/** One sync reply with one ECHO tool call (the `tool-reply` scenario's), answered in full. */
async function reply(url, channelId) {
  const response = await fetch(`${url}/api/messaging/channels/${channelId}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text: ECHO_REQUEST, entityId: 'bench-user', mode: 'sync' }),
  });
  const body = await response.json();
  if (response.status !== 200 || body.agentResponse?.toolCalls?.length !== 1) {
    throw new Error(`reply: ${response.status}`);
  }
}

/** Runs replies one after the other for `durationMs`; each reply's milliseconds. */
async function loop(url, channelId, durationMs) {
  const samples = [];
  let errors = 0;
  let lastError;
  const end = Date.now() + durationMs;
  while (Date.now() < end) {
    const start = performance.now();
    try {
      await reply(url, channelId);
      samples.push(performance.now() - start);
    } catch (error) {
      errors += 1;
      lastError = error.message;
    }
  }
  return { samples, errors, lastError };
}

/** Every receipt of a channel, page by page (200 each). */
async function channelReceipts(url, channelId) {
  const receipts = [];
  const attestations = [];
  let eventLog;
  let after = '';
  for (;;) {
    const response = await fetch(
      `${url}/api/messaging/channels/${channelId}/receipts?limit=200${after && `&after=${after}`}`,
    );
    const { data } = await response.json();
    receipts.push(...data.receipts);
    attestations.push(...data.attestations);
    eventLog ??= data.eventLog;
    if (!data.nextCursor) return { receipts, attestations, eventLog, nextCursor: null };
    after = data.nextCursor;
  }
}

/** Runs `parley-tee verify-receipt --chain` on `file`: its exit code and wall milliseconds. */
function verifyChain(file) {
  const start = performance.now();
  const child = spawn(
    process.execPath,
    [CLI, 'verify-receipt', '--chain', file, '--allow-simulator', '--allow-no-collateral'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  return new Promise((resolve) =>
    child.once('close', (code) => resolve({ code, ms: performance.now() - start, stdout })),
  );
}

/**
 * 13. Receipts (issue 43): the same reply with one tool call on a server in TEE_MODE=LOCAL (each stored reply
 * signed by the agent's key and appended to its chain under a lock) against a server without a TEE (nothing
 * signed), both running at once, phases alternated; one client, sync. Then `parley-tee verify-receipt --chain`
 * checks every receipt the run made, in a child process as a third party runs it: receipts verified per second,
 * the program's start included. `receipts-postgres`: the same on PostgreSQL (each receipt a transaction under
 * its chain's advisory lock, as processes of a cluster append).
 */
function receiptsScenario({ postgres }) {
  return {
    id: postgres ? 'receipts-postgres' : 'receipts',
    title: `13. a tool reply with its receipt signed and chained vs without a TEE (1 client, sequential${postgres ? ', PostgreSQL' : ''})`,
    run: async (context) => {
      const model = await startModelServer({ script: 'echo-tool' });
      const folder = await mkdtemp(join(tmpdir(), 'parley-bench-receipts-'));
      try {
        const withModel = { ...context, model };
        const measured = await withServer(
          withModel,
          'receipts-off',
          (off) =>
            withServer(
              withModel,
              'receipts-on',
              async (on) => {
                const targets = { without: off, with: on };
                const channels = { without: randomUUID(), with: randomUUID() };
                for (const variant of Object.keys(targets)) {
                  for (let i = 0; i < 25; i++) await reply(targets[variant].url, channels[variant]);
                }
                const phaseMs = (context.durationS * 1000) / ROUNDS / 2;
                const rounds = await alternateRounds(ROUNDS, ['without', 'with'], (variant) =>
                  measureCpu(
                    withModel,
                    {
                      server: targets[variant].server,
                      name: `${targets[variant].name}-${variant}`,
                    },
                    () => loop(targets[variant].url, channels[variant], phaseMs),
                  ),
                );
                const page = await channelReceipts(on.url, channels.with);
                const file = join(folder, 'chain.json');
                await writeFile(file, JSON.stringify(page));
                const verified = await verifyChain(file);
                return { ...rounds, receipts: page.receipts.length, verified };
              },
              { plugins: ['echo'], tee: true, postgres },
            ),
          { plugins: ['echo'], postgres },
        );
        const plain = variantFigures(measured.totals.without);
        const signed = variantFigures(measured.totals.with);
        const cpu = cpuRatio({
          figure: 'server CPU per reply, receipt signed and chained',
          measured: signed,
          limit: plain,
          maxRatio: MAX_RATIO,
          what: 'with receipts',
          limitWhat: 'without a TEE',
        });
        const { receipts, verified } = measured;
        return {
          rows: [
            cpu.row,
            {
              figure: 'p50 latency',
              value: signed.latency.p50,
              unit: 'ms',
              limit: plain.latency.p50,
            },
            {
              figure: 'receipts verified per second (CLI --chain, start included)',
              value: verified.code === 0 ? receipts / (verified.ms / 1000) : 0,
              unit: '/s',
            },
          ],
          notes: [
            `limit: the same reply on a server without a TEE, ${ROUNDS} alternated rounds each`,
            cpu.note,
            repliesNote('with receipts', measured.totals.with),
            repliesNote('without a TEE', measured.totals.without),
            `parley-tee verify-receipt --chain: ${receipts} receipts in ${Math.round(verified.ms)} ms, exit ${verified.code}` +
              ` (${verified.stdout.split('\n')[0]})`,
          ],
        };
      } finally {
        await model.stop();
        await rm(folder, { recursive: true, force: true });
      }
    },
  };
}

/** On the embedded database (one writer: one INSERT per receipt). */
export const receipts = receiptsScenario({ postgres: false });
/** On PostgreSQL (a locked transaction per receipt, as a cluster appends). */
export const receiptsPostgres = receiptsScenario({ postgres: true });
