import { randomUUID } from 'node:crypto';
import { ParleyError, SOCKET_MESSAGE_TYPE } from '@parley/core';
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedModel } from '../../test/scripted-model';
import { connectClient, joinRoom, nextEvent } from '../../test/socket-client';
import { startTestServer } from '../../test/test-server';
import {
  byName,
  callerTrace,
  descendsFrom,
  memoryLog,
  startTracedTest,
} from '../../test/tracing-fixture';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

describe('spans of socket events, statements and log lines', { timeout: 60_000 }, () => {
  it('a socket message is a span: the parent of its reply and statements; its log lines name the socket', async () => {
    const traced = await startTracedTest();
    const log = memoryLog('debug');
    const model = new ScriptedModel();
    model.behaviour = { reply: 'Hello from the socket' };
    const test = await startTestServer({
      model,
      logger: log.logger,
      tracerProvider: traced.tracing.tracerProvider,
    });
    cleanup.push(async () => test[Symbol.asyncDispose]());
    const socket = await connectClient(test.url, 'websocket');
    cleanup.push(() => Promise.resolve(void socket.close()));
    const roomId = randomUUID();
    expect(await joinRoom(socket, roomId, 'user-1')).toMatchObject({ status: 'ok' });
    const complete = nextEvent(socket, 'messageComplete');
    const ack = await socket.emitWithAck('message', {
      type: SOCKET_MESSAGE_TYPE.SEND_MESSAGE,
      payload: { senderId: 'user-1', senderName: 'Ada', message: 'hi', roomId },
    });
    expect(ack).toMatchObject({ status: 'ok' });
    await complete;
    socket.close();
    await test[Symbol.asyncDispose]();
    const spans = await traced.finish();

    const [joined] = byName(spans, 'socket.io ROOM_JOINING');
    expect(joined).toMatchObject({
      kind: 2,
      parentSpanId: '',
      attributes: {
        'parley.socket.id': socket.id ?? expect.any(String),
        'gen_ai.conversation.id': roomId,
      },
    });
    const [sent] = byName(spans, 'socket.io SEND_MESSAGE');
    expect(sent).toMatchObject({ kind: 2, attributes: { 'gen_ai.conversation.id': roomId } });
    const [agent] = byName(spans, 'invoke_agent Eliza');
    expect(agent).toMatchObject({ traceId: sent!.traceId, parentSpanId: sent!.spanId });
    expect(sent!.attributes['parley.reply.id']).toBe(agent!.attributes['parley.reply.id']);
    const statements = spans.filter((span) => span.attributes['db.system.name'] === 'postgresql');
    expect(statements.length).toBeGreaterThan(0);
    for (const statement of statements) {
      expect(statement.traceId === sent!.traceId || statement.traceId === joined!.traceId).toBe(
        true,
      );
    }
    expect(statements.some((statement) => descendsFrom(spans, statement, sent!))).toBe(true);
    // One line for the join (debug) and one for the message (info), each with the socket's id.
    const socketId = String(sent!.attributes['parley.socket.id']);
    expect(log.lines).toContainEqual(
      expect.objectContaining({ msg: 'socket joined a room', socketId, roomId, level: 20 }),
    );
    expect(log.lines).toContainEqual(
      expect.objectContaining({ msg: 'socket message', socketId, trace_id: sent!.traceId }),
    );
  });

  it('a failed reply’s log line carries the request id and the caller’s trace id', async () => {
    const traced = await startTracedTest();
    const log = memoryLog();
    const model = new ScriptedModel();
    model.behaviour = { fail: new ParleyError('INTERNAL', 'the model broke') };
    const test = await startTestServer({
      model,
      logger: log.logger,
      tracerProvider: traced.tracing.tracerProvider,
    });
    cleanup.push(async () => test[Symbol.asyncDispose]());
    const caller = callerTrace();
    const response = await fetch(`${test.url}/api/messaging/channels/${randomUUID()}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: caller.traceparent },
      body: JSON.stringify({ entityId: 'user-1', text: 'hi', mode: 'stream' }),
    });
    await response.text();
    const requestId = response.headers.get('x-request-id');
    expect(requestId).toBeTruthy();
    await test[Symbol.asyncDispose]();
    await traced.finish();
    const failed = log.lines.find((line) => line.msg === 'the model broke');
    expect(failed).toMatchObject({ requestId, trace_id: caller.traceId, code: 'INTERNAL' });
    expect(failed!.replyId).toEqual(expect.any(String));
    const requestLine = log.lines.find((line) => line.status !== undefined);
    expect(requestLine).toMatchObject({ requestId, trace_id: caller.traceId });
  });

  it('with no tracer provider, the reply’s log line still names its request and no trace', async () => {
    const log = memoryLog();
    const model = new ScriptedModel();
    model.behaviour = { fail: new ParleyError('INTERNAL', 'the model broke') };
    const test = await startTestServer({ model, logger: log.logger });
    cleanup.push(async () => test[Symbol.asyncDispose]());
    const response = await fetch(`${test.url}/api/messaging/channels/${randomUUID()}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', traceparent: callerTrace().traceparent },
      body: JSON.stringify({ entityId: 'user-1', text: 'hi', mode: 'sync' }),
    });
    expect(response.status).toBe(500);
    const failed = log.lines.find((line) => line.msg === 'the model broke');
    expect(failed).toMatchObject({ requestId: response.headers.get('x-request-id') });
    expect(log.lines.some((line) => 'trace_id' in line)).toBe(false);
  });
});
