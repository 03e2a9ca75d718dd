/** A reply in the action-aware shape the default stream extractor understands. */
export interface ActionResponse {
  thought: string;
  actions: readonly string[];
  text: string;
}

/**
 * Renders `<response><thought>…</thought><actions>…</actions><text>…</text></response>`. The offline model
 * only feeds it word characters and its own punctuation, so nothing needs escaping; `<` and `&` are escaped
 * anyway so a future caller cannot produce a reply that breaks the markup.
 */
export function toActionResponse(response: ActionResponse): string {
  return (
    `<response><thought>${escapeXml(response.thought)}</thought>` +
    `<actions>${response.actions.map(escapeXml).join(',')}</actions>` +
    `<text>${escapeXml(response.text)}</text></response>`
  );
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
