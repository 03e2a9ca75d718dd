/**
 * @module @parley/client/rest
 * The REST client (with the `stream` mode of channel messages) and the client's one error.
 */
export { createParleyClient } from './create-parley-client';
export type {
  CallOptions,
  ChannelMessage,
  ChannelMessagesQuery,
  ParleyClient,
  ParleyClientOptions,
} from './create-parley-client';
export type { ChannelMethods, ListChannelsOptions } from './channel-methods';
export type { Credential } from './http-config';
export type { ChannelStreamEvent, StreamOptions } from '../sse/stream-channel-message';
export { ParleyClientError } from '../client-error';
