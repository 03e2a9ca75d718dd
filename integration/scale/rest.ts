import type { StoredMessage } from '@parley/core';

const DEFAULT_SERVER_ID = '00000000-0000-0000-0000-000000000000';

async function json<T>(response: Response, what: string): Promise<T> {
  const text = await response.text();
  if (!response.ok) throw new Error(`${what}: ${response.status} ${text}`);
  return JSON.parse(text) as T;
}

/** POST /api/messaging/submit; resolves with the stored message's id once the server acknowledged it. */
export async function submit(url: string, channelId: string, content: string): Promise<string> {
  const response = await fetch(`${url}/api/messaging/submit`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      channel_id: channelId,
      server_id: DEFAULT_SERVER_ID,
      author_id: 'rest-user',
      content,
      source_type: 'api',
      metadata: {},
    }),
  });
  return (await json<{ data: { id: string } }>(response, 'submit')).data.id;
}

/** A channel message in `websocket` mode (202 at once); resolves with the user message's id. */
export async function postToChannel(url: string, channelId: string, text: string): Promise<string> {
  const response = await fetch(`${url}/api/messaging/channels/${channelId}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text, entityId: 'rest-user', mode: 'websocket' }),
  });
  return (await json<{ userMessage: { id: string } }>(response, 'channel message')).userMessage.id;
}

/** A channel message in `sync` mode: the agent's full reply. */
export async function syncReply(url: string, channelId: string, text: string): Promise<string> {
  const response = await fetch(`${url}/api/messaging/channels/${channelId}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text, entityId: 'rest-user', mode: 'sync' }),
  });
  return (await json<{ agentResponse: { text: string } }>(response, 'sync')).agentResponse.text;
}

/** A channel message in `stream` mode: the names of the server-sent events, in order, and the final text. */
export async function streamReply(
  url: string,
  channelId: string,
  text: string,
): Promise<{ events: string[]; text: string }> {
  const response = await fetch(`${url}/api/messaging/channels/${channelId}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ text, entityId: 'rest-user', mode: 'stream' }),
  });
  const body = await response.text();
  if (!response.ok) throw new Error(`stream: ${response.status} ${body}`);
  const blocks = body.split('\n\n').filter((block) => block.includes('event: '));
  const events = blocks.map((block) => /event: (\S+)/.exec(block)?.[1] ?? '');
  const done = blocks.find((block) => block.includes('event: done'));
  const data = done ? /data: (.*)/.exec(done)?.[1] : undefined;
  return { events, text: data ? (JSON.parse(data) as { text: string }).text : '' };
}

/** Every stored message of a channel, newest first, through the history cursor. */
export async function history(url: string, channelId: string): Promise<StoredMessage[]> {
  const all: StoredMessage[] = [];
  let before: string | undefined;
  for (;;) {
    const query = new URLSearchParams({ limit: '200', ...(before ? { before } : {}) });
    const response = await fetch(
      `${url}/api/messaging/channels/${channelId}/messages?${query.toString()}`,
    );
    const page = (
      await json<{ data: StoredMessage[] | { messages: StoredMessage[] } }>(response, 'history')
    ).data;
    const messages = Array.isArray(page) ? page : page.messages;
    all.push(...messages);
    if (messages.length < 200) return all;
    before = messages.at(-1)?.created_at;
  }
}

/** Schedules a message through the scale test plugin's route. */
export async function schedule(
  url: string,
  channelId: string,
  text: string,
  sendAt: Date,
): Promise<string> {
  const response = await fetch(`${url}/scale/schedule`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ channelId, text, sendAt: sendAt.toISOString() }),
  });
  return (await json<{ id: string }>(response, 'schedule')).id;
}
