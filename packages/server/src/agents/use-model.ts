import type { ModelParams } from '@parley/plugin-sdk';
import type { ModelMessage, ModelProvider } from '../models/model-provider';
import { modelText } from '../models/stream-model';

/** Model types answered with text. */
const TEXT_TYPES = new Set([
  'TEXT_SMALL',
  'TEXT_LARGE',
  'REASONING_SMALL',
  'REASONING_LARGE',
  'TEXT_COMPLETION',
]);
/** Model types answered with a JSON object. */
const OBJECT_TYPES = new Set(['OBJECT_SMALL', 'OBJECT_LARGE']);
/** Longest text `useModel` gathers. */
const MAX_ANSWER = 1024 * 1024;

/**
 * elizaOS's `runtime.useModel` on the agent's model: the prompt (after the system text, when given) as one user
 * turn, no tools, the answer's text as the model wrote it (elizaOS plugins parse its XML or JSON themselves); for
 * the object types, the answer parsed as JSON (inside a ``` fence or not). Any other type (embeddings, images,
 * speech) throws an error naming it: Parley hosts one chat model per server.
 */
export async function useModel(
  model: ModelProvider | undefined,
  agentName: string,
  modelType: string,
  params: ModelParams,
): Promise<unknown> {
  const type = String(modelType);
  const wantsObject = OBJECT_TYPES.has(type);
  if (!model || (!TEXT_TYPES.has(type) && !wantsObject)) {
    throw new Error(
      `useModel(${type}) is not offered by Parley: it answers TEXT_SMALL, TEXT_LARGE, the reasoning types and OBJECT_SMALL/OBJECT_LARGE with the agent's chat model`,
    );
  }
  const messages: ModelMessage[] = [];
  if (typeof params?.system === 'string' && params.system !== '') {
    messages.push({ role: 'system', content: params.system });
  }
  messages.push({ role: 'user', content: typeof params?.prompt === 'string' ? params.prompt : '' });
  const signal = params?.signal instanceof AbortSignal ? params.signal : undefined;
  const text = await modelText(model, { messages, agentName, signal }, MAX_ANSWER);
  if (!wantsObject) return text;
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(text)?.[1] ?? text;
  try {
    return JSON.parse(fenced.trim()) as unknown;
  } catch {
    throw new Error(`useModel(${type}): the model's answer is not JSON`);
  }
}
