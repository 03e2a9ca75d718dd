// Child process: the fake OpenAI-compatible model server, kept off the Parley server's event loop. With
// `script: 'echo-tool'` it answers as `echo-upstream.mjs` scripts (a tool call, then text); otherwise the fixed
// `reply`.
import { startFakeOpenAIServer } from '@parley/server/testing';
import { childConfig } from './child.mjs';

const { reply, chunkSize, script } = childConfig();
const events =
  script === 'echo-tool' ? (await import('./echo-upstream.mjs')).echoToolScript : undefined;
const upstream = await startFakeOpenAIServer({ reply, chunkSize, ...(events ? { events } : {}) });

process.on('message', (message) => {
  if (message.type === 'usage') {
    process.send({ type: 'usage', cpu: process.cpuUsage(), requests: upstream.requests });
  }
  if (message.type === 'stop') void upstream.close().then(() => process.exit(0));
});
process.send({ type: 'ready', url: upstream.url });
