import { DiagnosticSeverity, Parser } from '@asyncapi/parser';
import { readFile } from 'node:fs/promises';
import { SOCKET_MESSAGE_TYPE } from '@parley/core';
import { describe, expect, it } from 'vitest';
import { createAsyncApiDocument } from './create-asyncapi-document';
import { documentedEvents } from './documented-events';
import { SERVER_EVENTS } from './socket-event-schemas';

const document = createAsyncApiDocument();

const eventsOf = (action: 'send' | 'receive') => documentedEvents(document, action);

describe('createAsyncApiDocument', () => {
  it('is a valid AsyncAPI 3 document', async () => {
    const diagnostics = await new Parser().validate(JSON.stringify(document));
    // Information and hints (such as "a newer minor version exists") are not problems.
    const problems = diagnostics.filter(
      (diagnostic) => Number(diagnostic.severity) <= Number(DiagnosticSeverity.Warning),
    );
    expect(problems).toEqual([]);
    expect(document.asyncapi).toMatch(/^3\./);
  });

  it('sends every event of the core event map', () => {
    expect([...eventsOf('send')].sort()).toEqual(Object.keys(SERVER_EVENTS).sort());
  });

  it('receives every opcode a client may send in a message envelope', () => {
    const opcodes = Object.values(document.components.messages)
      .filter((message) => message.name === 'message')
      .map((message) => JSON.stringify(message.payload));
    expect(opcodes).toHaveLength(2);
    expect(opcodes.join()).toContain(`"const":${SOCKET_MESSAGE_TYPE.ROOM_JOINING}`);
    expect(opcodes.join()).toContain(`"const":${SOCKET_MESSAGE_TYPE.SEND_MESSAGE}`);
  });

  it("carries the server package's version", async () => {
    const { version } = JSON.parse(
      await readFile(new URL('../../../package.json', import.meta.url), 'utf8'),
    ) as { version: string };
    expect((document.info as { version: string }).version).toBe(version);
  });
});
