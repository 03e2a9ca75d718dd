import { credentialHeaders } from '../auth/credential';

/** A channel as `GET /api/messaging/channels` lists it (the fields the page uses). */
export interface ServerChannel {
  id: string;
  name: string;
  agentId: string | null;
  lastMessageAt: string | null;
  createdAt: string;
}

/** A refusal from the channels API, with the server's code (`NOT_FOUND`, `UNAUTHORIZED`…) when it gave one. */
export class ChannelsApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code?: string,
  ) {
    super(message);
  }
}

/** The channels this page lists at most (the newest by activity). */
export const CHANNEL_PAGE = 100;

/**
 * One call of Parley's channels API (docs/http-guide.md), with the page's API key, unwrapping the success
 * envelope. A small function on purpose: `@parley/client`'s channel methods can replace it one for one.
 */
async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method,
    headers: {
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...credentialHeaders(),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.json().catch(() => undefined)) as
    { success?: boolean; data?: T; error?: { code?: string; message?: string } } | undefined;
  if (!response.ok || !json?.success) {
    const error = json?.error;
    throw new ChannelsApiError(
      error?.message ?? `HTTP ${response.status}`,
      response.status,
      error?.code,
    );
  }
  return json.data as T;
}

/** Whether a value looks like a listed channel (the answer is checked, not trusted). */
export function isServerChannel(value: unknown): value is ServerChannel {
  const channel = value as ServerChannel;
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof channel.id === 'string' &&
    typeof channel.name === 'string'
  );
}

/** The newest channels by activity. */
export async function listChannels(): Promise<ServerChannel[]> {
  const data = await call<{ channels?: unknown }>(
    'GET',
    `/api/messaging/channels?limit=${CHANNEL_PAGE}`,
  );
  return Array.isArray(data.channels) ? data.channels.filter(isServerChannel) : [];
}

/** Creates a channel with this id (the page picks it, so the address can name it at once). */
export function createChannel(input: {
  id: string;
  name: string;
  agentId?: string;
}): Promise<ServerChannel> {
  return call('POST', '/api/messaging/channels', input);
}

/** Renames a channel. */
export function renameChannel(channelId: string, name: string): Promise<ServerChannel> {
  return call('PATCH', `/api/messaging/channels/${encodeURIComponent(channelId)}`, { name });
}

/** Deletes a channel and its messages. */
export function deleteChannel(channelId: string): Promise<unknown> {
  return call('DELETE', `/api/messaging/channels/${encodeURIComponent(channelId)}`);
}
