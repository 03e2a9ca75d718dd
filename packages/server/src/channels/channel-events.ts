import type { ServerToClientEventName, ServerToClientEvents } from '@parley/core';
import type { Logger } from 'pino';
import type { Server } from 'socket.io';
import type { RoomBroadcaster } from '../reply/delivery/room-broadcaster';
import type { ParleySocketServer } from '../socket/create-socket-server';
import type { MessageStore } from '../storage/message-store';

/** The server-side event the processes of a cluster tell each other to forget a channel's cached state on. */
export const CHANNEL_FORGET_EVENT = 'parley:channel-forget';

/** Where the channels service's changes go: sockets (in every process) and the other processes' caches. */
export interface ChannelEvents {
  /** To every connected socket, in every process. */
  toEveryone<E extends ServerToClientEventName>(
    event: E,
    ...payload: Parameters<ServerToClientEvents[E]>
  ): void;
  /** To the channel's room, in every process. */
  toRoom<E extends ServerToClientEventName>(
    channelId: string,
    event: E,
    ...payload: Parameters<ServerToClientEvents[E]>
  ): void;
  /** This process and the others forget what they cached of the channel (its agent, recent messages). */
  forget(channelId: string): void;
}

/**
 * Channel events over socket.io: `io.emit` and rooms go through the adapter, so with a cluster adapter they
 * reach the sockets of every process; `forget` uses the adapter's server-to-server channel (`serverSideEmit`),
 * which only a cluster adapter has.
 */
export function createChannelEvents(options: {
  io: ParleySocketServer;
  broadcaster: RoomBroadcaster;
  messages: MessageStore;
  clustered: boolean;
  logger: Logger;
}): ChannelEvents {
  const io = options.io as unknown as Server;
  const { messages, logger } = options;
  if (options.clustered) {
    io.on(CHANNEL_FORGET_EVENT, (channelId: unknown) => {
      if (typeof channelId === 'string') messages.forgetChannel(channelId);
    });
  }
  return {
    toEveryone(event, ...payload) {
      io.emit(event, ...payload);
    },
    toRoom(channelId, event, ...payload) {
      options.broadcaster.emit(channelId, event, ...payload);
    },
    forget(channelId) {
      messages.forgetChannel(channelId);
      if (!options.clustered) return;
      try {
        io.serverSideEmit(CHANNEL_FORGET_EVENT, channelId);
      } catch (error) {
        logger.warn({ err: error, channelId }, 'could not tell the cluster to forget a channel');
      }
    },
  };
}
