import {
  API_KEY_HEADER,
  SERVER_EVENT_SCHEMAS,
  SOCKET_MESSAGE_TYPE,
  socketAckSchema,
} from '@parley/core';
import { z } from 'zod';
import { jsonSchemaOf, type JsonSchema } from '../json-schema-of';
import { SERVER_PACKAGE_VERSION } from '../package-version';
import { CLIENT_EVENTS, SERVER_EVENTS, type DocumentedSocketEvent } from './socket-event-schemas';

/** Options of {@link createAsyncApiDocument}. */
export interface AsyncApiDocumentOptions {
  /**
   * `servers.parley.host`: where the server listens, from its settings (`apiDocsRoutes` passes it). Default
   * `localhost:3000`, the address of a server started with no settings, for a document built outside one.
   */
  host?: string;
  /** `info.version` (default: the version of `@parley/server`, whose interface this is). */
  version?: string;
}

/** An AsyncAPI 3 document as plain JSON. */
export type AsyncApiDocument = Record<string, unknown> & {
  channels: Record<string, Record<string, unknown> & { messages: Record<string, unknown> }>;
  operations: Record<string, Record<string, unknown>>;
  components: Record<string, unknown> & { messages: Record<string, Record<string, unknown>> };
};

const CHANNEL = 'socket';
const ACK_MESSAGE = 'acknowledgment';

/** The name a message is filed under: the event, or for `message` the opcode's name. */
function messageIdOf(event: DocumentedSocketEvent): string {
  return event.messageType === undefined
    ? event.event
    : SOCKET_MESSAGE_TYPE[event.messageType]
        .toLowerCase()
        .replace(/_(.)/g, (_m, c: string) => c.toUpperCase());
}

/** A `message` event's payload is an envelope of the opcode and its payload. */
function payloadOf(event: DocumentedSocketEvent, io: 'input' | 'output'): JsonSchema {
  const schema =
    event.messageType === undefined
      ? event.payload
      : z.object({ type: z.literal(event.messageType), payload: event.payload });
  return jsonSchemaOf(schema, io, 'draft-07');
}

function messageOf(event: DocumentedSocketEvent, io: 'input' | 'output'): Record<string, unknown> {
  return {
    name: event.event,
    title: messageIdOf(event),
    summary: event.summary,
    contentType: 'application/json',
    payload: payloadOf(event, io),
  };
}

const ref = (path: string) => ({ $ref: path });

/**
 * The AsyncAPI 3 document of the event socket (socket.io 4 on the HTTP port, path `/socket.io`): every event
 * a client sends (`message` per opcode, `typing`, `leaveRoom`, with their acknowledgments) and every event
 * the server emits, with payload schemas generated from the zod schemas of `@parley/core`. The operations are
 * the server's: it receives what clients send and sends the rest.
 */
export function createAsyncApiDocument(options: AsyncApiDocumentOptions = {}): AsyncApiDocument {
  const received: DocumentedSocketEvent[] = Object.entries(CLIENT_EVENTS).flatMap(
    ([event, variants]) => variants.map((variant) => ({ event, ...variant })),
  );
  const sent: DocumentedSocketEvent[] = Object.entries(SERVER_EVENTS).map(([event, summary]) => ({
    event,
    summary,
    payload: SERVER_EVENT_SCHEMAS[event as keyof typeof SERVER_EVENTS],
  }));

  const messages: Record<string, Record<string, unknown>> = {
    [ACK_MESSAGE]: {
      name: 'acknowledgment',
      title: ACK_MESSAGE,
      summary:
        "The argument of an event's acknowledgment callback: `{ status: 'ok', … }` or `{ status: 'error', error: { code, message } }`.",
      contentType: 'application/json',
      payload: jsonSchemaOf(socketAckSchema, 'output', 'draft-07'),
    },
  };
  for (const event of received) messages[messageIdOf(event)] = messageOf(event, 'input');
  for (const event of sent) messages[messageIdOf(event)] = messageOf(event, 'output');

  const channelRef = ref(`#/channels/${CHANNEL}`);
  const messageRef = (id: string) => ref(`#/channels/${CHANNEL}/messages/${id}`);
  const operations: AsyncApiDocument['operations'] = {};
  for (const event of received) {
    const id = messageIdOf(event);
    operations[`receive${id.charAt(0).toUpperCase()}${id.slice(1)}`] = {
      action: 'receive',
      channel: channelRef,
      summary: event.summary,
      messages: [messageRef(id)],
      ...(event.acknowledged
        ? { reply: { channel: channelRef, messages: [messageRef(ACK_MESSAGE)] } }
        : {}),
    };
  }
  for (const event of sent) {
    const id = messageIdOf(event);
    operations[`send${id.charAt(0).toUpperCase()}${id.slice(1)}`] = {
      action: 'send',
      channel: channelRef,
      summary: event.summary,
      messages: [messageRef(id)],
    };
  }

  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Parley event socket',
      version: options.version ?? SERVER_PACKAGE_VERSION,
      description:
        'socket.io 4 on the same host and port as the HTTP interface (path `/socket.io`, transports polling ' +
        'and websocket). Clients join a room (a channel id) with a ROOM_JOINING `message`, then send with ' +
        'SEND_MESSAGE; replies stream as `messageStreamChunk` (with `toolCall` and `toolResult` when the agent ' +
        'acts), then `messageBroadcast` and `messageComplete`.',
      license: { name: 'MIT' },
    },
    defaultContentType: 'application/json',
    servers: {
      parley: {
        host: options.host ?? 'localhost:3000',
        protocol: 'ws',
        pathname: '/socket.io',
        description:
          'The Parley server itself (socket.io 4 protocol), at the address its HOST and PORT settings give ' +
          '(the Host the document was fetched by when it listens on every address). Behind a TLS proxy, ' +
          'connect with `wss` to the public name.',
        security: [ref('#/components/securitySchemes/apiKey')],
      },
    },
    channels: {
      [CHANNEL]: {
        address: '/socket.io',
        title: 'Event socket',
        description:
          'All events travel on one connection; room ids inside the payloads address rooms.',
        messages: Object.fromEntries(
          Object.keys(messages).map((id) => [id, ref(`#/components/messages/${id}`)]),
        ),
      },
    },
    operations,
    components: {
      messages,
      securitySchemes: {
        apiKey: {
          type: 'httpApiKey',
          in: 'header',
          name: API_KEY_HEADER,
          description:
            'Needed only when the server has SERVER_AUTH_TOKEN: pass it as the handshake `auth.apiKey` or the ' +
            '`x-api-key` header. A handshake without it, from a Host that is not allowed, or over the ' +
            "per-address connection rate, is refused (socket.io's `connect_error`).",
        },
      },
    },
  };
}
