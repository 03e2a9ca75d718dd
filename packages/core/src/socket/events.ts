import type { z } from 'zod';
import type { Channel } from '../schemas/channels';
import type {
  ControlMessage,
  MessageBroadcast,
  MessageComplete,
  MessageError,
  MessageStreamChunk,
  PresenceEvent,
  CancelReplyPayload,
  DecideApprovalPayload,
  RoomApprovalRequest,
  SocketAck,
  SocketEnvelope,
  ToolCall,
  ToolResult,
  UserTyping,
  connectionEstablishedSchema,
  roomJoiningPayloadSchema,
  typingPayloadSchema,
} from '../schemas/socket-payloads';

/** Events a client emits to the server. */
export interface ClientToServerEvents {
  /**
   * An envelope of SOCKET_MESSAGE_TYPE. The acknowledgment is part of the contract (socket.io's
   * `emitWithAck` needs it typed); a client that sends none gets a `messageError` event on failure instead.
   */
  message: (envelope: SocketEnvelope, ack: (response: SocketAck) => void) => void;
  /** Typing indicator for a room. */
  typing: (payload: z.input<typeof typingPayloadSchema>) => void;
  /** Leaves a room; the other members get `userLeft`. */
  leaveRoom: (
    payload: z.input<typeof roomJoiningPayloadSchema>,
    ack: (response: SocketAck) => void,
  ) => void;
  /**
   * Cancels a running reply in a room this connection joined: the room sees it end with `messageError` code
   * CANCELLED. The ack answers `ok`, or an error (NOT_FOUND, CONFLICT when it already ended, FORBIDDEN).
   */
  cancelReply: (payload: CancelReplyPayload, ack: (response: SocketAck) => void) => void;
  /**
   * Approves or denies a call of a paused reply in a room this connection joined. The ack answers `ok`, or an
   * error (NOT_FOUND, CONFLICT when already decided or expired, FORBIDDEN).
   */
  decideApproval: (payload: DecideApprovalPayload, ack: (response: SocketAck) => void) => void;
}

/** Events the server emits to clients. */
export interface ServerToClientEvents {
  messageBroadcast: (payload: MessageBroadcast) => void;
  messageStreamChunk: (payload: MessageStreamChunk) => void;
  /** A running reply called a tool (before it runs). */
  toolCall: (payload: ToolCall) => void;
  /** The outcome of a `toolCall`: `output`, or `error`. */
  toolResult: (payload: ToolResult) => void;
  /** A running reply waits for a person to approve or deny a call. */
  approvalRequest: (payload: RoomApprovalRequest) => void;
  messageComplete: (payload: MessageComplete) => void;
  messageError: (payload: MessageError) => void;
  controlMessage: (payload: ControlMessage) => void;
  connection_established: (payload: z.infer<typeof connectionEstablishedSchema>) => void;
  userJoined: (payload: PresenceEvent) => void;
  userLeft: (payload: PresenceEvent) => void;
  userTyping: (payload: UserTyping) => void;
  /** A channel was created (to every connected socket, in every process). */
  channelCreated: (payload: Channel) => void;
  /** A channel was renamed or otherwise changed (to every connected socket). */
  channelUpdated: (payload: Channel) => void;
  /** A channel and its messages were deleted (to every connected socket). */
  channelDeleted: (payload: { channelId: string }) => void;
  /** A message of the room's channel was deleted. */
  messageDeleted: (payload: { channelId: string; messageId: string }) => void;
  /** The room's channel's history was cleared. */
  channelCleared: (payload: { channelId: string }) => void;
}

/** Names of the events the server emits. */
export type ServerToClientEventName = keyof ServerToClientEvents;
