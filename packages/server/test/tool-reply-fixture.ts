/** The reply the tool-part SSE tests share: two calls made at once, one answered, one failed. */
export const replyId = '5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f';
export const channelId = '0b7f7f64-2d0a-4c52-9a2f-5d6e7f8a9b0c';
export const lookup = { toolCallId: 'c1', toolName: 'LOOKUP', input: { q: 'weather' } };
export const invented = { toolCallId: 'c2', toolName: 'MADE_UP', input: 'not json' };
export const records = [
  { ...lookup, output: { text: 'hot' } },
  { ...invented, error: 'Unknown tool MADE_UP' },
];
export const TEXT = 'Let me check. Hot!';
