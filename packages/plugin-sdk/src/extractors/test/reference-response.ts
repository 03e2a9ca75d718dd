/** What the action-aware format means, read from a whole document at once (no streaming). */
export interface ReferenceResponse {
  output: string;
  thought: string | undefined;
  actions: string[] | undefined;
  text: string | undefined;
}

const OPENING_TAGS = ['<thought>', '<actions>', '<text>'];

/**
 * A deliberately naive reading of the action-aware format with `indexOf` over the whole document, to check the
 * streaming extractor against.
 */
export function referenceResponse(document: string): ReferenceResponse {
  const result: ReferenceResponse = {
    output: '',
    thought: undefined,
    actions: undefined,
    text: undefined,
  };
  let position = 0;
  for (;;) {
    const found = OPENING_TAGS.map((tag) => ({ tag, at: document.indexOf(tag, position) }))
      .filter(({ at }) => at !== -1)
      .sort((left, right) => left.at - right.at)[0];
    if (found === undefined) return result;
    const field = found.tag.slice(1, -1);
    const start = found.at + found.tag.length;
    const end = document.indexOf(`</${field}>`, start);
    const content = end === -1 ? document.slice(start) : document.slice(start, end);
    if (field === 'thought') result.thought = content;
    if (field === 'actions') {
      result.actions = content
        .split(',')
        .map((action) => action.trim())
        .filter(Boolean);
    }
    if (field === 'text') {
      const plain =
        result.actions === undefined ||
        (result.actions.length === 1 && result.actions[0] === 'REPLY');
      result.text = content;
      result.output = plain ? content : '';
      return result;
    }
    if (end === -1) return result;
    position = end + field.length + 3;
  }
}
