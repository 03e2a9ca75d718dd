import { randomUUID } from 'node:crypto';
import {
  defineAction,
  definePlugin,
  defineProvider,
  type Action,
  type HandlerOptions,
  type Plugin,
} from '@parley/plugin-sdk';
import type { ModelRequest } from '../src/models/model-provider';
import type { ServerOptions } from '../src/create-server';
import { ScriptedModel, type ScriptedBehaviour } from './scripted-model';
import { startTestServer, type TestServer } from './test-server';

/** What an action's handler was called with. */
export interface ActionCall {
  name: string;
  parameters: unknown;
  channelId: string;
  signal: AbortSignal | undefined;
}

/** A server with a scripted model and a plugin whose actions record their calls. */
export interface LoopFixture {
  test: TestServer;
  model: ScriptedModel;
  calls: ActionCall[];
  /** Posts a channel message; resolves with the response. */
  send(channelId: string, body: Record<string, unknown>): Promise<Response>;
  /** Posts a `sync` channel message and resolves with its JSON body. */
  sync(channelId: string, text: string): Promise<SyncBody>;
  /** A fresh channel id. */
  channel(): string;
}

/** The `sync` answer, as far as these tests read it. */
export interface SyncBody {
  success: boolean;
  replyId?: string;
  agentResponse: {
    text: string;
    actions: string[];
    toolCalls?: {
      toolCallId: string;
      toolName: string;
      input: unknown;
      output?: unknown;
      error?: string;
    }[];
  };
  error?: { code: string };
}

/** `GET_WEATHER {city}`: answers from a table (a JSON Schema `parameters`). */
export function weatherAction(calls: ActionCall[], extra: Partial<Action> = {}): Action {
  return defineAction<{ city: string }>({
    name: 'GET_WEATHER',
    similes: ['WEATHER'],
    description: 'The weather in a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string', minLength: 1 } },
      required: ['city'],
      additionalProperties: false,
    },
    handler: (_runtime, message, _state, options?: HandlerOptions<{ city: string }>) => {
      calls.push(record('GET_WEATHER', message.roomId, options));
      return { success: true, text: `Sunny in ${options?.parameters?.city}, 21 °C` };
    },
    ...(extra as object),
  });
}

export function record(
  name: string,
  channelId: string,
  options?: HandlerOptions<unknown>,
): ActionCall {
  return { name, parameters: options?.parameters, channelId, signal: options?.signal };
}

/** The result texts of the tool turns at the end of a request (what the model was given back). */
export function toolResultsOf(request: ModelRequest): string[] {
  const results: string[] = [];
  for (const message of request.messages)
    if (message.role === 'tool') results.push(message.content);
  return results;
}

/** Answers "Done: <results>" once results came back, else calls what `calls` says. */
export function answerFromResults(request: ModelRequest): string {
  return `Done: ${toolResultsOf(request).join(' | ')}`;
}

/** A model's behaviour: GET_WEATHER(Paris) as `call_1` when the user has just spoken, then the results said. */
export function weatherThenAnswer(): ScriptedBehaviour {
  return {
    toolCalls: (request) =>
      request.messages.at(-1)?.role === 'user'
        ? [{ toolCallId: 'call_1', toolName: 'GET_WEATHER', input: '{"city":"Paris"}' }]
        : undefined,
    reply: answerFromResults,
    plain: true,
  };
}

/** Starts a server with `actions` in one plugin (and a provider, when given). */
export async function startLoopServer(
  actions: (calls: ActionCall[]) => Action[],
  options: Partial<ServerOptions> & {
    providers?: Plugin['providers'];
    evaluators?: Plugin['evaluators'];
  } = {},
): Promise<LoopFixture> {
  const model = new ScriptedModel();
  const calls: ActionCall[] = [];
  const { providers, evaluators, ...serverOptions } = options;
  const plugin = definePlugin({
    name: 'loop-test',
    actions: actions(calls),
    providers: providers ?? [defineProvider({ name: 'NONE_YET', get: () => ({}) })],
    evaluators,
  });
  const test = await startTestServer({ model, plugins: [plugin], ...serverOptions });
  const send = (channelId: string, body: Record<string, unknown>) =>
    fetch(`${test.url}/api/messaging/channels/${channelId}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ entityId: 'user-1', ...body }),
    });
  return {
    test,
    model,
    calls,
    send,
    sync: async (channelId, text) =>
      (await (await send(channelId, { text, mode: 'sync' })).json()) as SyncBody,
    channel: () => randomUUID(),
  };
}
