import { randomUUID } from 'node:crypto';
import { runLatencyClient, startModelServer, usageRows, withServer } from '../lib/harness.mjs';
import { summarize } from '../lib/stats.mjs';
import { alternateRounds, cpuRatio, repliesNote, variantFigures } from '../lib/variants.mjs';

/** Measured phases per variant, alternated (channel, openai, channel, openai), so a drift of the machine hits both. */
const ROUNDS = 4;

/**
 * The target (issue 41): a `/v1/chat/completions` reply costs at most 1.2× the server CPU of the same reply
 * through the channel API, and its first streamed token comes within 1 ms (p50) of the channel API's first
 * chunk. Both faces are consumers of the one reply; the difference is the face's own translation.
 */
const MAX_RATIO = 1.2;
const MAX_FIRST_CHUNK_GAP_MS = 1;

const TEXT = 'Hello, how are you today?';

/**
 * 12. The same reply through the channel API and through `/v1/chat/completions`, on one server and one fake
 * upstream: one client, one request after the other, each face in its own channel (the `/v1` one named by
 * `X-Parley-Channel-Id`, so both keep the same history window). First non-streamed (`sync` against a
 * `chat.completion`) for the CPU per reply, then streamed (`stream` against `stream: true`) for the first chunk.
 * The limit is the channel API: its figures are the "limit" column.
 */
export default {
  id: 'openai-reply',
  title:
    '12. a /v1/chat/completions reply vs the same reply through the channel API (1 client, sequential)',
  run: async (context) => {
    const model = await startModelServer();
    try {
      const withModel = { ...context, model };
      const firstChunks = { channel: [], openai: [] };
      const measured = await withServer(
        withModel,
        'openai-reply',
        async ({ url, server, name }) => {
          const models = await (await fetch(`${url}/v1/models`)).json();
          const agentId = models.data[0].id;
          const channels = { channel: randomUUID(), openai: randomUUID() };
          const phaseMs = (context.durationS * 1000) / ROUNDS / 2;
          const request = (variant, streamed) =>
            variant === 'channel'
              ? {
                  path: `/api/messaging/channels/${channels.channel}/messages`,
                  body: { text: TEXT, entityId: 'bench-user', mode: streamed ? 'stream' : 'sync' },
                  mode: streamed ? 'stream' : 'sync',
                }
              : {
                  path: '/v1/chat/completions',
                  headers: { 'x-parley-channel-id': channels.openai },
                  body: {
                    model: agentId,
                    stream: streamed,
                    messages: [{ role: 'user', content: TEXT }],
                  },
                  mode: streamed ? 'openai-stream' : 'openai',
                };
          const phase = (streamed) => (variant, round) =>
            runLatencyClient(
              withModel,
              { server, name: `${name}-${variant}${streamed ? '-stream' : ''}` },
              {
                url,
                ...request(variant, streamed),
                // The first round warms the path up and fills the history window (20 messages).
                warmupRequests: round === 0 ? 100 : 5,
                durationMs: phaseMs,
                maxRequests: 25_000,
              },
            ).then((result) => {
              if (streamed) firstChunks[variant].push(...result.result.firstChunk);
              return result;
            });
          const sync = await alternateRounds(ROUNDS, ['channel', 'openai'], phase(false));
          const stream = await alternateRounds(ROUNDS, ['channel', 'openai'], phase(true));
          return { sync, stream };
        },
      );
      const channel = variantFigures(measured.sync.totals.channel);
      const openai = variantFigures(measured.sync.totals.openai);
      const cpu = cpuRatio({
        figure: 'server CPU per reply, /v1/chat/completions',
        measured: openai,
        limit: channel,
        maxRatio: MAX_RATIO,
        what: 'through /v1/chat/completions',
        limitWhat: 'through the channel API',
      });
      const first = {
        channel: summarize(firstChunks.channel),
        openai: summarize(firstChunks.openai),
      };
      const gap = first.openai.p50 - first.channel.p50;
      return {
        rows: [
          cpu.row,
          {
            figure: 'p50 latency',
            value: openai.latency.p50,
            unit: 'ms',
            limit: channel.latency.p50,
          },
          {
            figure: 'p99 latency',
            value: openai.latency.p99,
            unit: 'ms',
            limit: channel.latency.p99,
          },
          {
            figure: 'throughput',
            value: openai.perSecond,
            unit: 'replies/s',
            limit: channel.perSecond,
          },
          {
            figure: 'first chunk p50',
            value: first.openai.p50,
            unit: 'ms',
            limit: first.channel.p50,
          },
          {
            figure: 'first chunk p50, /v1 minus channel',
            value: gap,
            unit: 'ms',
            target: ['<', MAX_FIRST_CHUNK_GAP_MS],
          },
          ...usageRows(openai.usage, openai.clientCpu, { serverCpu: channel.usage.serverCpu }),
        ],
        notes: [
          `limit: the same reply through the channel API (sync, then stream), same server and upstream, ${ROUNDS} alternated rounds each`,
          cpu.note,
          `CPU per reply ratio by round: ${measured.sync.roundRatios.map((value) => `${value.toFixed(2)}×`).join(', ')}`,
          `first chunk p50 ${first.openai.p50.toFixed(2)} ms through /v1 vs ${first.channel.p50.toFixed(2)} ms through the channel API (target within ${MAX_FIRST_CHUNK_GAP_MS} ms)`,
          repliesNote('/v1', measured.sync.totals.openai),
          repliesNote('channel', measured.sync.totals.channel),
          repliesNote('/v1 streamed', measured.stream.totals.openai),
          repliesNote('channel streamed', measured.stream.totals.channel),
        ],
      };
    } finally {
      await model.stop();
    }
  },
};
