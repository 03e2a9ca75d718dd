import { randomUUID } from 'node:crypto';
import { runLatencyClient, startModelServer, usageRows, withServer } from '../lib/harness.mjs';
import { alternateRounds, cpuRatio, repliesNote, variantFigures } from '../lib/variants.mjs';

/** Measured phases per variant, alternated (off, on, off, on), so a drift of the machine hits both. */
const ROUNDS = 4;

/** The target (issue 37): a reply with memory and knowledge on costs at most 1.5× the server CPU of one without. */
const MAX_RATIO = 1.5;

// A question the document answers, with no fact about the speaker in it (a steady conversation, not an introduction).
const TEXT = 'What is the parking code at the office?';

/** Memory off: no facts about people, no running summary (and no knowledge document uploaded). */
const OFF = { facts: { extraction: 'off' }, conversation: { summary: 'off' } };

/** A document for the agent's knowledge, so that each reply also recalls fragments. */
const HANDBOOK = {
  title: 'Office handbook',
  text: [
    '# Office handbook',
    'The parking code is 9182. The wifi password of the Lisbon office is TEAL-4471.',
    'Lunch is at noon. Builds run on the CI machines in the basement; flaky tests are retried once.',
  ].join('\n\n'),
};

/**
 * 14. The same sync reply on two servers run side by side: one with memory and knowledge off (no facts, no
 * summary, no document), one with the defaults (facts by rules, the running summary) and a knowledge document,
 * so each reply also recalls the speaker's facts and the document's fragments. One client, one request after the
 * other, one channel per phase and one speaker throughout. Model time is in another process: the figures are
 * the server's own. The limit is the server with memory off.
 */
export default {
  id: 'memory-cost',
  title:
    '14. a reply with memory and knowledge on vs the same reply with them off (1 client, sequential)',
  run: async (context) => {
    const model = await startModelServer();
    try {
      const withModel = { ...context, model };
      const measured = await withServer(
        withModel,
        'memory-off',
        (off) =>
          withServer(withModel, 'memory-on', async (on) => {
            const agents = await (await fetch(`${on.url}/api/agents`)).json();
            const agentId = agents.data.agents[0].id;
            const uploaded = await fetch(`${on.url}/api/agents/${agentId}/knowledge`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify(HANDBOOK),
            });
            if (!uploaded.ok) throw new Error(`knowledge upload answered ${uploaded.status}`);
            const servers = { off, on };
            const phaseMs = (context.durationS * 1000) / ROUNDS / 2;
            return alternateRounds(ROUNDS, ['off', 'on'], (variant, round) => {
              const running = servers[variant];
              return runLatencyClient(
                withModel,
                { server: running.server, name: `${running.name}-${round}` },
                {
                  url: running.url,
                  path: `/api/messaging/channels/${randomUUID()}/messages`,
                  body: { text: TEXT, entityId: 'bench-user', mode: 'sync' },
                  mode: 'sync',
                  warmupRequests: round === 0 ? 100 : 5,
                  durationMs: phaseMs,
                  maxRequests: 25_000,
                },
              );
            });
          }),
        { serverOptions: OFF },
      );
      const off = variantFigures(measured.totals.off);
      const on = variantFigures(measured.totals.on);
      const cpu = cpuRatio({
        figure: 'server CPU per reply, memory and knowledge on',
        measured: on,
        limit: off,
        maxRatio: MAX_RATIO,
        what: 'with memory and knowledge on',
        limitWhat: 'with them off',
      });
      return {
        rows: [
          cpu.row,
          { figure: 'p50 latency', value: on.latency.p50, unit: 'ms', limit: off.latency.p50 },
          { figure: 'p99 latency', value: on.latency.p99, unit: 'ms', limit: off.latency.p99 },
          { figure: 'throughput', value: on.perSecond, unit: 'replies/s', limit: off.perSecond },
          ...usageRows(on.usage, on.clientCpu, { serverCpu: off.usage.serverCpu }),
        ],
        notes: [
          `limit: the same sync reply on a server with memory off (FACT_EXTRACTION=off, CONVERSATION_SUMMARY=off, no knowledge), run beside it, ${ROUNDS} alternated rounds each`,
          cpu.note,
          `CPU per reply ratio by round: ${measured.roundRatios.map((value) => `${value.toFixed(2)}×`).join(', ')}`,
          repliesNote('memory on', measured.totals.on),
          repliesNote('memory off', measured.totals.off),
        ],
      };
    } finally {
      await model.stop();
    }
  },
};
