import { describe, expect, it } from 'vitest';
import { SOCKET_MESSAGE_TYPE } from './message-type';

describe('SOCKET_MESSAGE_TYPE', () => {
  it('keeps the wire values fixed by the protocol', () => {
    expect({ ...SOCKET_MESSAGE_TYPE }).toMatchObject({
      ROOM_JOINING: 1,
      SEND_MESSAGE: 2,
      MESSAGE: 3,
      ACK: 4,
      THINKING: 5,
      CONTROL: 6,
    });
  });
});
