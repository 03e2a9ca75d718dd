import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineAction, definePlugin } from '@parley/plugin-sdk';
import { createLogger, createServer, type ModelProvider, type ServerOptions } from '@parley/server';
import { loadConfig } from '@parley/server/config';
import { buildServerOptions } from '../../apps/server/src/cli/build-server-options';
import { serveWebPage } from '../../apps/server/src/web/serve-web-page';

/** What a hostile model and tool put everywhere they can: markup with a script in an attribute. */
export const HOSTILE = '<img src=x onerror=alert(1)>';

/**
 * The app as `parley start` builds it with no settings (every example plugin, the offline model), on a free
 * port with an in-memory database; `overrides` replace options (a scripted model, other plugins).
 */
export async function startApp(overrides: Partial<ServerOptions> = {}) {
  const cwd = await mkdtemp(join(tmpdir(), 'parley-tool-cards-'));
  const { options } = await buildServerOptions(await loadConfig({ env: {}, argv: [], cwd }), cwd);
  const server = createServer({
    ...options,
    port: 0,
    host: '127.0.0.1',
    logger: createLogger('silent'),
    database: { kind: 'pglite', dataDir: 'memory' },
    ...overrides,
  });
  serveWebPage(server);
  const { url } = await server.start();
  return {
    server,
    url,
    stop: async () => {
      await server.stop();
      await rm(cwd, { recursive: true, force: true });
    },
  };
}

/** A model that calls three tools with hostile names, inputs and outputs, then answers with hostile text. */
export function hostileModel(): ModelProvider {
  return {
    name: 'hostile',
    callsTools: true,
    // eslint-disable-next-line @typescript-eslint/require-await
    async *stream(request) {
      if (request.messages.at(-1)?.role === 'tool') {
        yield { type: 'text-delta', delta: `Here: ${HOSTILE}` };
        yield { type: 'finish', finishReason: 'stop' };
        return;
      }
      const calls = [
        ['call_calc', 'CALCULATE', { expression: HOSTILE }],
        ['call_echo', 'ECHO', { html: HOSTILE }],
        ['call_unknown', HOSTILE, {}],
      ] as const;
      for (const [toolCallId, toolName, input] of calls) {
        yield { type: 'tool-call', toolCallId, toolName, input: JSON.stringify(input) };
      }
      yield { type: 'finish', finishReason: 'tool-calls' };
    },
  };
}

/** `ECHO`: returns its `html` argument as its text. */
export const echoPlugin = definePlugin({
  name: 'echo',
  description: 'Echoes its input',
  actions: [
    defineAction<{ html: string }>({
      name: 'ECHO',
      description: 'Echoes html',
      parameters: {
        type: 'object',
        properties: { html: { type: 'string' } },
        required: ['html'],
      },
      handler: (_runtime, _message, _state, options) => ({
        success: true,
        text: options?.parameters?.html ?? '',
      }),
    }),
  ],
});
