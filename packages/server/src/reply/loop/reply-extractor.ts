import { ActionStreamFilter } from '@parley/plugin-sdk';

/** What the messaging core needs of an extractor: streaming, plus the parsed reply at the end. */
export interface ReplyExtractor {
  push(chunk: string): string;
  flush(): string;
  /** The reply's text, actions and thought, once the input has ended. */
  result(): { text: string; actions: string[]; thought: string | undefined };
}

/** Largest JSON answer kept to read its `actions` and `thought` at the end (the text streams regardless). */
const MAX_JSON_ANSWER = 1024 * 1024;

/**
 * The default: the SDK's {@link ActionStreamFilter}, so that whatever the model answers in becomes the reply.
 * The action-aware XML format wins when present (its text, actions and thought); a JSON answer streams its
 * `text` field and gives its `actions` and `thought` when it has them; plain text is the reply as it is.
 * Whatever is not XML with explicit actions counts as a REPLY.
 */
export function createReplyExtractor(): ReplyExtractor {
  const filter = new ActionStreamFilter();
  let streamed = '';
  let json = '';
  const track = (output: string, input: string) => {
    streamed += output;
    if (filter.contentType === 'json' && json.length + input.length <= MAX_JSON_ANSWER)
      json += input;
    return output;
  };
  return {
    push: (chunk) => track(filter.push(chunk), chunk),
    flush: () => track(filter.flush(), ''),
    result() {
      if (filter.contentType === 'json') return { text: streamed, ...jsonFields(json) };
      const text = streamed;
      const actions = filter.actions ? [...filter.actions] : text === '' ? [] : ['REPLY'];
      return { text, actions, thought: filter.thought };
    },
  };
}

/** `actions` and `thought` of a JSON answer, when it parses and has them. */
function jsonFields(answer: string): { actions: string[]; thought: string | undefined } {
  let value: unknown;
  try {
    value = JSON.parse(answer);
  } catch {
    value = undefined;
  }
  const root = (Array.isArray(value) ? value[0] : value) as Record<string, unknown> | undefined;
  const actions = root?.actions;
  const thought = root?.thought;
  return {
    actions:
      Array.isArray(actions) && actions.every((action) => typeof action === 'string')
        ? actions
        : ['REPLY'],
    thought: typeof thought === 'string' ? thought : undefined,
  };
}
