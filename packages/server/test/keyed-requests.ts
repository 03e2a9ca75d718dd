/** The channel messages endpoint of `channelId`. */
export const channelPath = (channelId: string) => `/api/messaging/channels/${channelId}/messages`;

/** POSTs `body` as a channel message of `channelId` under `Idempotency-Key: key`. */
export function postWithKey(
  url: string,
  channelId: string,
  body: unknown,
  key: string,
): Promise<Response> {
  return fetch(`${url}${channelPath(channelId)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify(body),
  });
}

/** The channel's stored messages, newest first (up to 200). */
export async function historyOf(url: string, channelId: string) {
  const response = await fetch(`${url}${channelPath(channelId)}?limit=200`);
  const body = (await response.json()) as {
    data: { messages: { id: string; author_id: string; content: string }[] };
  };
  return body.data.messages;
}
