import type {
  ModelProvider,
  ModelRequest,
  ModelStreamPartV2,
  ModelStreamPartV1,
} from './model-provider';

/**
 * One step of `model` as current (`v2`) parts: the one place the server reads a model, and the one place a model
 * without a version is adapted. A `v2` model's stream is returned as it is (no wrapper on the hot path). A `v1`
 * model (no `specificationVersion`, as every model was before versions) is read as `v2`: its text and tool calls
 * pass unchanged, its `finish` gets `usage: {}` when it had none, a stream that ends without `finish` gets
 * `finish: stop` (what `v1` said such a stream meant), and what it throws becomes an `error` part, except once
 * the request's signal aborted: then it is thrown, as a `v2` model throws on abort.
 */
export function streamModel(
  model: ModelProvider,
  request: ModelRequest,
): AsyncIterable<ModelStreamPartV2> {
  if (model.specificationVersion === 'v2') {
    return model.stream(request) as AsyncIterable<ModelStreamPartV2>;
  }
  return fromV1(model.stream(request) as AsyncIterable<ModelStreamPartV1>, request.signal);
}

async function* fromV1(
  parts: AsyncIterable<ModelStreamPartV1>,
  signal: AbortSignal | undefined,
): AsyncGenerator<ModelStreamPartV2, void, undefined> {
  let finished = false;
  try {
    // A model without a version may pass on a versioned model's parts: a wrapper written before versions around
    // a built-in model (which fails with `error` parts) is read with them, not without them.
    for await (const part of parts as AsyncIterable<ModelStreamPartV1 | ModelStreamPartV2>) {
      switch (part.type) {
        case 'text-delta':
        case 'tool-call':
        case 'reasoning-delta':
        case 'tool-input-start':
        case 'tool-input-delta':
        case 'tool-input-end':
          yield part;
          break;
        case 'finish':
          finished = true;
          yield { type: 'finish', finishReason: part.finishReason, usage: part.usage ?? {} };
          break;
        case 'error':
          yield part;
          return;
        default:
          part satisfies never;
      }
    }
  } catch (error) {
    if (signal?.aborted) throw error;
    yield { type: 'error', error };
    return;
  }
  if (!finished) yield { type: 'finish', finishReason: 'stop', usage: {} };
}

/**
 * The text of one model step, at most `limit` characters, for the callers that want only an answer (`useModel`,
 * summaries, facts, channel names). Reasoning, tool input and tool calls are not text; the step's `error` is
 * thrown, as the model's own failure was before parts carried errors. `stopAtLimit`: stop the model once `limit`
 * characters arrived (default: read the step to its end).
 */
export async function modelText(
  model: ModelProvider,
  request: ModelRequest,
  limit: number,
  stopAtLimit = false,
): Promise<string> {
  let text = '';
  for await (const part of streamModel(model, request)) {
    switch (part.type) {
      case 'text-delta':
        if (text.length < limit) text += part.delta;
        if (stopAtLimit && text.length >= limit) return text;
        break;
      case 'error':
        throw part.error;
      case 'reasoning-delta':
      case 'tool-input-start':
      case 'tool-input-delta':
      case 'tool-input-end':
      case 'tool-call':
      case 'finish':
        break;
      default:
        part satisfies never;
    }
  }
  return text;
}
