import { ParleyError } from '@parley/core';
import type {
  ModelProvider,
  ModelRequest,
  ModelStreamPart,
  ModelToolCall,
  ModelUsage,
} from '../src/models/model-provider';

/** How the scripted model answers the next requests. */
export interface ScriptedBehaviour {
  /** Reply text (wrapped in the action-aware format), or a function of the request. */
  reply?: string | ((request: ModelRequest) => string);
  /** Actions in the reply (default REPLY). */
  actions?: string;
  /** Characters per chunk (default 5). */
  chunkSize?: number;
  /** Throw this instead of answering. */
  fail?: ParleyError;
  /** Wait for this before the first chunk (a function decides per request). */
  gate?: Promise<void> | ((request: ModelRequest) => Promise<void> | undefined);
  /** Wait for `gate` once `after` characters of the reply text have been sent (a reply cut in the middle). */
  pauseInText?: { after: number; gate: Promise<void> };
  /**
   * Tool calls to make in this step instead of answering (a function decides per request; undefined or an
   * empty list: answer). Only offered tools' names make sense, but the model may call anything, as a real one can.
   */
  toolCalls?: ModelToolCall[] | ((request: ModelRequest) => ModelToolCall[] | undefined);
  /** Plain text instead of the action-aware XML document (as a tool-calling model answers). */
  plain?: boolean;
  /** Tokens each step reports in its `finish` part (default: none reported, and no `finish` after text). */
  usage?: ModelUsage;
}

/**
 * A model for tests: its behaviour is set per test, it records every request, and it honours abort signals
 * the way a real provider must.
 */
export class ScriptedModel implements ModelProvider {
  readonly name = 'scripted';
  /** Whether tools are offered to it natively (default true). */
  callsTools = true;
  behaviour: ScriptedBehaviour = {};
  readonly requests: ModelRequest[] = [];
  readonly aborted: ModelRequest[] = [];
  #abortListeners: ((request: ModelRequest) => void)[] = [];

  /** Resolves with the next request whose signal aborts. */
  nextAbort(): Promise<ModelRequest> {
    return new Promise((resolve) => this.#abortListeners.push(resolve));
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelStreamPart> {
    this.requests.push(request);
    const { reply = 'Hello there!', actions = 'REPLY', chunkSize = 5, fail, gate } = this.behaviour;
    const { toolCalls, plain } = this.behaviour;
    const { pauseInText, usage } = this.behaviour;
    const onAbort = () => {
      this.aborted.push(request);
      for (const listener of this.#abortListeners.splice(0)) listener(request);
    };
    if (request.signal?.aborted) onAbort();
    else request.signal?.addEventListener('abort', onAbort);
    const held = typeof gate === 'function' ? gate(request) : gate;
    if (held) await Promise.race([held, aborted(request.signal)]);
    throwIfAborted(request.signal);
    if (fail) throw fail;
    const calls = typeof toolCalls === 'function' ? toolCalls(request) : toolCalls;
    if (calls && calls.length > 0) {
      for (const call of calls) {
        await new Promise((resolve) => setImmediate(resolve));
        throwIfAborted(request.signal);
        yield { type: 'tool-call', ...call };
      }
      yield { type: 'finish', finishReason: 'tool-calls', ...(usage ? { usage } : {}) };
      return;
    }
    const text = typeof reply === 'function' ? reply(request) : reply;
    const document = plain
      ? text
      : `<response><thought>scripted</thought><actions>${actions}</actions><text>${text}</text></response>`;
    const pauseAt = pauseInText ? document.indexOf('<text>') + 6 + pauseInText.after : Infinity;
    for (let i = 0; i < document.length; i += chunkSize) {
      if (i >= pauseAt && i - chunkSize < pauseAt) await pauseInText!.gate;
      throwIfAborted(request.signal);
      yield { type: 'text-delta', delta: document.slice(i, i + chunkSize) };
      // A new turn of the event loop per piece, as pieces of a live model arrive.
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (usage) yield { type: 'finish', finishReason: 'stop', usage };
  }
}

function aborted(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => signal?.addEventListener('abort', () => resolve()));
}

function throwIfAborted(signal: AbortSignal | undefined) {
  if (signal?.aborted) throw new ParleyError('TIMEOUT', 'aborted', { cause: signal.reason });
}

/** A promise with its resolve function, to hold a model until a test lets it go. */
export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
