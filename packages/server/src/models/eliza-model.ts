import { setTimeout as sleep } from 'node:timers/promises';
import { answerInVoice, withPostExample } from './eliza/character-voice';
import { type CompiledScript, compileScript } from './eliza/compile-script';
import { composeReply } from './eliza/compose-reply';
import type { ElizaReply } from './eliza/eliza-reply';
import { DOCTOR_SCRIPT } from './eliza/doctor-script';
import { withOfflineNote } from './eliza/offline-note';
import type { ElizaScript } from './eliza/eliza-script';
import { answerFromResults, pickToolCall } from './eliza/pick-tool-call';
import { splitIntoChunks } from './eliza/split-into-chunks';
import { toActionResponse } from './eliza/to-action-response';
import type { ModelProviderV2, ModelRequest, ModelStreamPartV2 } from './model-provider';

/** Options of {@link createElizaModel}. */
export interface ElizaModelOptions {
  /**
   * Pause between chunks, to make streaming visible in demos. Default 0: each chunk still comes in its own turn
   * of the event loop, as a live model's do, so it reaches clients as its own chunk.
   */
  chunkDelayMs?: number;
  /** The conversation script. Default: Weizenbaum's DOCTOR. */
  script?: ElizaScript;
}

// Only letters, digits and a little punctuation of the agent's name go into replies, so a name cannot break
// the XML the reply is wrapped in.
function toSpokenName(agentName: string): string {
  return agentName.replace(/[^\p{L}\p{N} .'-]/gu, '').trim() || 'Eliza';
}

/**
 * The answer to the last user message: in the character's voice where it has one for it (`eliza/character-voice.ts`),
 * else the script's, with a post example of the character's where the script has nothing to key on, and the
 * offline note when it is asked for more than it can do (once a conversation).
 */
function answer(request: ModelRequest, script: CompiledScript): ElizaReply {
  const name = toSpokenName(request.agentName);
  const { character, messages } = request;
  // The character's own answer is an answer: it says what the model cannot do itself where it should.
  const voiced = character && answerInVoice(messages, character, name);
  if (voiced) return voiced;
  const reply = composeReply(messages, name, script);
  return withOfflineNote(
    character ? withPostExample(reply, messages, character, name) : reply,
    messages,
  );
}

// timers/promises rejects with its own AbortError; callers are promised `signal.reason` instead.
async function pause(delayMs: number, signal: AbortSignal | undefined): Promise<void> {
  try {
    await sleep(delayMs, undefined, { signal });
  } catch (error) {
    signal?.throwIfAborted();
    throw error;
  }
}

/**
 * The default model: an offline, deterministic conversation partner in the manner of Weizenbaum's ELIZA. It
 * needs no network and no key, answers the last user message in the action-aware format
 * `<response><thought>…</thought><actions>REPLY</actions><text>…</text></response>`, and streams it in pieces
 * of 8 to 24 characters so extraction and streaming are exercised for real. Asked for more than it can do (a
 * request for work or knowledge it has no tool for), it says once per conversation that it is the offline demo
 * model and which settings change it (`eliza/offline-note.ts`). Given the agent's character (`request.character`),
 * it greets, introduces itself and answers its example messages in that character's voice
 * (`eliza/character-voice.ts`).
 *
 * @example
 * const model = createElizaModel();
 * for await (const part of model.stream({ agentName: 'Eliza', messages: [{ role: 'user', content: 'I am sad' }] })) {
 *   if (part.type === 'text-delta') process.stdout.write(part.delta);
 * }
 */
export function createElizaModel(options: ElizaModelOptions = {}): ModelProviderV2 {
  const script = compileScript(options.script ?? DOCTOR_SCRIPT);
  const delayMs = options.chunkDelayMs ?? 0;
  let calls = 0;
  return {
    specificationVersion: 'v2',
    name: 'eliza',
    callsTools: true,
    async *stream(request: ModelRequest): AsyncGenerator<ModelStreamPartV2> {
      const { signal } = request;
      signal?.throwIfAborted();
      const last = request.messages.at(-1);
      const call =
        last?.role === 'user' ? pickToolCall(last.content, request.tools ?? []) : undefined;
      if (call) {
        calls += 1;
        yield {
          type: 'tool-call',
          toolCallId: `call_eliza_${calls}`,
          toolName: call.toolName,
          input: JSON.stringify(call.input),
        };
        yield { type: 'finish', finishReason: 'tool-calls', usage: {} };
        return;
      }
      const results = answerFromResults(request.messages);
      const reply = results
        ? { thought: 'The results are in. Tell them plainly.', text: results }
        : answer(request, script);
      const chunks = splitIntoChunks(toActionResponse({ ...reply, actions: ['REPLY'] }));
      for (const [index, chunk] of chunks.entries()) {
        if (index > 0) {
          // Without a turn between them, chunks produced together would reach clients as one.
          if (delayMs > 0) await pause(delayMs, signal);
          else await new Promise((resolve) => setImmediate(resolve));
        }
        signal?.throwIfAborted();
        yield { type: 'text-delta', delta: chunk };
      }
      // It counts no tokens: the daily budget estimates what an offline answer costs.
      yield { type: 'finish', finishReason: 'stop', usage: {} };
    },
  };
}
