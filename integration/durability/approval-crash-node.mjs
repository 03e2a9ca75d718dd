// @ts-check
/**
 * One Parley process for the approval crash test, on PostgreSQL (DATABASE_URL), on a free loopback port. Prints
 * one JSON line `{ "url": … }` once it serves.
 *
 * Its agent has DELETE_FILE, which needs approval (and says it is idempotent with IDEMPOTENT=1); each run of its
 * handler appends a line to RUN_LOG. Its model calls DELETE_FILE when the user has just spoken, and once the
 * call's result came back answers `Result: <what the call gave>`; with STALL=1 it stalls there instead, until the
 * reply is aborted, so that the test kills the process after the handler ran. APPROVAL_LEASE_MS sets how long
 * the process holds a continued reply without renewing it.
 */
import { appendFileSync } from 'node:fs';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { definePlugin } from '@parley/plugin-sdk';
import { createLogger, createServer } from '@parley/server';

const databaseUrl = process.env.DATABASE_URL;
const runLog = process.env.RUN_LOG;
if (!databaseUrl || !runLog) throw new Error('DATABASE_URL and RUN_LOG are required');
const stall = process.env.STALL === '1';

/** @type {import('@parley/server').ModelProvider} */
const model = {
  name: 'delete-then-answer',
  callsTools: true,
  async *stream(request) {
    const last = request.messages.at(-1);
    if (last?.role === 'user') {
      yield {
        type: 'tool-call',
        toolCallId: 'call_delete',
        toolName: 'DELETE_FILE',
        input: '{"path":"/srv/report.txt"}',
      };
      yield { type: 'finish', finishReason: 'tool-calls' };
      return;
    }
    if (stall) await sleep(600_000, undefined, { signal: request.signal });
    yield { type: 'text-delta', delta: `Result: ${last?.content ?? ''}` };
    yield { type: 'finish', finishReason: 'stop' };
  },
};

const plugin = definePlugin({
  name: 'approval-crash',
  actions: [
    {
      name: 'DELETE_FILE',
      description: 'Deletes a file',
      parameters: {
        type: 'object',
        properties: { path: { type: 'string' } },
        required: ['path'],
        additionalProperties: false,
      },
      needsApproval: true,
      idempotent: process.env.IDEMPOTENT === '1',
      handler: (_runtime, _message, _state, options) => {
        appendFileSync(runLog, `${process.pid} ${String(options?.parameters?.path)}\n`);
        return { success: true, text: `Deleted ${String(options?.parameters?.path)}` };
      },
    },
  ],
});

const server = createServer({
  port: 0,
  env: {},
  logger: createLogger('warn', process.stderr),
  database: { kind: 'postgres', url: databaseUrl, poolSize: 4 },
  model,
  plugins: [plugin],
  approvals: { leaseMs: Number(process.env.APPROVAL_LEASE_MS ?? 30_000), sweepMs: 200 },
  shutdownTimeoutMs: 2000,
});
const { url } = await server.start();
process.stdout.write(`${JSON.stringify({ url })}\n`);
process.once('SIGTERM', () => void server.stop().then(() => process.exit(0)));
