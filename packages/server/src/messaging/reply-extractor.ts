import { ResponseStreamExtractor } from '@parley/plugin-sdk';

/** What the messaging core needs of an extractor: streaming, plus the parsed reply at the end. */
export interface ReplyExtractor {
  push(chunk: string): string;
  flush(): string;
  /** The reply's text, actions and thought, once the input has ended. */
  result(): { text: string; actions: string[]; thought: string | undefined };
}

/**
 * The default: the SDK's action-aware ResponseStreamExtractor. A reply with text but no `<actions>` counts as a
 * plain REPLY, as the extractor itself streams it.
 */
export function createReplyExtractor(): ReplyExtractor {
  const extractor = new ResponseStreamExtractor();
  return {
    push: (chunk) => extractor.push(chunk),
    flush: () => extractor.flush(),
    result() {
      const text = extractor.text ?? '';
      const actions = extractor.actions ? [...extractor.actions] : text === '' ? [] : ['REPLY'];
      return { text, actions, thought: extractor.thought };
    },
  };
}
