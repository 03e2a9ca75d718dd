// Child process: one client sending requests one after the other (the next leaves when the previous answer
// is complete), timing each. `mode` is `sync` (time to the whole answer) or `stream` (time to the first
// `event: chunk`, and to the end of the stream); `openai` and `openai-stream` are the same against
// `/v1/chat/completions` (the first chunk is the first one with content). With `expectToolCalls` (sync), a reply
// counts only when it made that many tool calls. `headers` are sent with every request. A `{channel}` in `path`
// is a new channel id for each request.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { childConfig } from './child.mjs';
import { cpuMark, cpuPercentSince, msSince } from './stats.mjs';

const { url, path, body, mode, warmupRequests, durationMs, maxRequests, expectToolCalls, headers } =
  childConfig();
const streamed = mode === 'stream' || mode === 'openai-stream';
/** What the first chunk of text looks like in each streamed mode. */
const FIRST_CHUNK = mode === 'openai-stream' ? /"delta":\{"content":"[^"]/ : /event: chunk/;
const perRequest = path.includes('{channel}');
const fixedTarget = new URL(path, url);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const payload = Buffer.from(JSON.stringify(body));

function send() {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    let firstChunkMs;
    let text = '';
    const request = http.request(
      perRequest ? new URL(path.replace('{channel}', randomUUID()), url) : fixedTarget,
      {
        method: 'POST',
        agent,
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': payload.length,
        },
      },
      (response) => {
        response.setEncoding('utf8');
        response.on('data', (data) => {
          if (firstChunkMs !== undefined) return;
          text += data;
          if (streamed && FIRST_CHUNK.test(text)) firstChunkMs = msSince(start);
        });
        response.on('end', () => {
          const totalMs = msSince(start);
          // A request counts only when the agent really answered: a reply with text, or a streamed chunk.
          let answered;
          let toolCalls;
          if (streamed) answered = firstChunkMs !== undefined;
          else if (mode === 'openai') {
            answered = (JSON.parse(text).choices?.[0]?.message?.content ?? '') !== '';
          } else {
            const reply = JSON.parse(text).agentResponse;
            answered = reply?.text !== '';
            toolCalls = reply?.toolCalls?.length ?? 0;
            if (expectToolCalls !== undefined && toolCalls !== expectToolCalls) answered = false;
          }
          const ok = response.statusCode === 200 && answered;
          resolve({ ok, status: response.statusCode, totalMs, firstChunkMs, toolCalls });
        });
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}

for (let index = 0; index < warmupRequests; index++) await send();
// The runner starts measuring the server (CPU, profile) between warm-up and measurement.
process.send({ type: 'warmed-up' });
await new Promise((resolve) => process.once('message', resolve));

const total = [];
const firstChunk = [];
let errors = 0;
let lastError;
const started = process.hrtime.bigint();
const mark = cpuMark();
while (total.length + errors < maxRequests && msSince(started) < durationMs) {
  const result = await send();
  if (!result.ok) {
    errors += 1;
    lastError = `status ${result.status}${result.status === 200 ? ` without a reply (${result.toolCalls ?? 0} tool calls)` : ''}`;
    continue;
  }
  total.push(result.totalMs);
  if (result.firstChunkMs !== undefined) firstChunk.push(result.firstChunkMs);
}
const elapsedMs = msSince(started);
agent.destroy();
const clientCpu = cpuPercentSince(mark);
// Disconnect only once the result is written: a large result (tens of thousands of samples) is still being
// sent when send() returns, and disconnecting then drops it.
process.send({ type: 'result', total, firstChunk, errors, lastError, elapsedMs, clientCpu }, () =>
  process.disconnect(),
);
