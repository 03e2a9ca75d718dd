/**
 * Opcodes of the socket `message` envelope. The numeric values are fixed by the wire protocol and never change.
 */
export enum SOCKET_MESSAGE_TYPE {
  ROOM_JOINING = 1,
  SEND_MESSAGE = 2,
  MESSAGE = 3,
  ACK = 4,
  THINKING = 5,
  CONTROL = 6,
}
