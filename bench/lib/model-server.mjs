// Child process: the fake OpenAI-compatible model server, kept off the Parley server's event loop.
import { startFakeOpenAIServer } from '@parley/server/testing';
import { childConfig } from './child.mjs';

const { reply, chunkSize } = childConfig();
const upstream = await startFakeOpenAIServer({ reply, chunkSize });

process.on('message', (message) => {
  if (message.type === 'usage') process.send({ type: 'usage', cpu: process.cpuUsage() });
  if (message.type === 'stop') void upstream.close().then(() => process.exit(0));
});
process.send({ type: 'ready', url: upstream.url });
