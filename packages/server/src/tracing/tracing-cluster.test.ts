import { randomUUID } from 'node:crypto';
import { definePlugin } from '@parley/plugin-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { weatherAction, weatherThenAnswer, type ActionCall } from '../../test/agent-loop-fixture';
import { databaseKinds, type TestDatabase } from '../../test/databases';
import { deferred, ScriptedModel } from '../../test/scripted-model';
import { parseSse } from '../../test/sse';
import {
  byName,
  callerTrace,
  descendsFrom,
  memoryLog,
  startTracedTest,
  type TracedTest,
} from '../../test/tracing-fixture';
import { createServer, type ParleyServer } from '../create-server';
import { startReceiver, until } from '../webhooks/test-support';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
});

/** A server of the "cluster" on `database`, exporting to the test's SDK; GET_WEATHER needs approval. */
async function startNode(database: TestDatabase, traced: TracedTest, approval = true) {
  const model = new ScriptedModel();
  model.behaviour = weatherThenAnswer();
  const calls: ActionCall[] = [];
  const log = memoryLog();
  const server: ParleyServer = createServer({
    port: 0,
    logger: log.logger,
    env: {},
    model,
    plugins: [
      definePlugin({
        name: 'trace-test',
        actions: [weatherAction(calls, { needsApproval: approval })],
      }),
    ],
    database: database.location,
    // A decision continues the reply at once, in the deciding process; the sweep is the backstop.
    approvals: { sweepMs: 30_000 },
    webhooks: { privateTargets: ['127.0.0.1'], pollMs: 20, retryDelaysMs: [50] },
    tracerProvider: traced.tracing.tracerProvider,
  });
  const { url } = await server.start();
  cleanup.push(() => server.stop());
  return { server, url, model, calls, log };
}

const post = (url: string, path: string, body: unknown, traceparent?: string) =>
  fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(traceparent ? { traceparent } : {}) },
    body: JSON.stringify(body),
  });

const kinds = (await databaseKinds()).filter((kind) => kind.name === 'postgres');

describe.each(kinds)('traces across two servers on one database ($name)', ({ create, skip }) => {
  it.skipIf(skip)(
    'a reply queued on server 2 behind server 1’s is in its caller’s trace, its wait and statements spans of it',
    { timeout: 90_000 },
    async () => {
      const database = await create();
      cleanup.push(() => database.dispose());
      const traced = await startTracedTest();
      const one = await startNode(database, traced, false);
      const two = await startNode(database, traced, false);
      const held = deferred();
      one.model.behaviour = { reply: 'first', gate: held.promise };
      two.model.behaviour = { reply: 'second' };
      const channelId = randomUUID();
      const path = `/api/messaging/channels/${channelId}/messages`;
      const first = post(one.url, path, { entityId: 'u1', text: 'one', mode: 'sync' });
      await until(
        () => one.model.requests.length,
        (n) => n > 0,
      );
      const caller = callerTrace();
      const second = post(
        two.url,
        path,
        { entityId: 'u2', text: 'two', mode: 'sync' },
        caller.traceparent,
      );
      // Server 2 stored its message and waits for the channel's turn: its model is not called meanwhile.
      await until(
        async () => (await (await fetch(`${two.url}${path}`)).json()) as { data: unknown },
        (history) => JSON.stringify(history).includes('"two"'),
      );
      expect(two.model.requests).toHaveLength(0);
      held.resolve();
      expect((await first).status).toBe(200);
      expect((await second).status).toBe(200);
      await one.server.stop();
      await two.server.stop();
      const spans = (await traced.finish()).filter((span) => span.traceId === caller.traceId);

      const [http] = byName(spans, 'POST /api/messaging/channels/:channelId/messages');
      expect(http).toMatchObject({ parentSpanId: caller.spanId });
      const [wait] = byName(spans, 'parley.queue.wait');
      expect(wait).toMatchObject({
        parentSpanId: http!.spanId,
        attributes: { 'gen_ai.conversation.id': channelId },
      });
      const [agent] = byName(spans, 'invoke_agent Eliza');
      expect(agent).toMatchObject({ parentSpanId: http!.spanId });
      expect(agent!.attributes['parley.reply.id']).toBe(wait!.attributes['parley.reply.id']);
      expect(byName(spans, 'chat scripted')[0]).toMatchObject({ parentSpanId: agent!.spanId });
      // Statements are spans of the trace, each a child of the span that ran it.
      const statements = spans.filter((span) => span.attributes['db.system.name'] === 'postgresql');
      expect(statements.some((span) => span.name === 'INSERT postgresql')).toBe(true);
      for (const statement of statements) {
        expect(statement.kind).toBe(3);
        expect(descendsFrom(spans, statement, http!)).toBe(true);
      }
      // The reply's log lines name the request that started it and its trace.
      expect(two.log.lines.find((line) => line.trace_id === caller.traceId)).toBeDefined();
    },
  );

  it.skipIf(skip)(
    'message.created and reply.completed, written by the database trigger, reach the receiver in the caller’s trace',
    { timeout: 60_000 },
    async () => {
      const database = await create();
      cleanup.push(() => database.dispose());
      const receiver = await startReceiver(() => ({ status: 200 }));
      cleanup.push(() => receiver.close());
      const traced = await startTracedTest();
      const one = await startNode(database, traced, false);
      const two = await startNode(database, traced, false);
      const subscribed = await post(one.url, '/api/webhooks', {
        url: receiver.url,
        events: ['message.created', 'reply.completed'],
      });
      expect(subscribed.status).toBe(201);

      const caller = callerTrace();
      const asked = await post(
        two.url,
        `/api/messaging/channels/${randomUUID()}/messages`,
        { entityId: 'user-1', text: 'weather?', mode: 'sync' },
        caller.traceparent,
      );
      expect(asked.status).toBe(200);
      // The question, the answer, and the answer as a reply: three deliveries, whichever process sends them.
      const received = await until(
        () => receiver.received,
        (all) => all.length >= 3,
      );
      await one.server.stop();
      await two.server.stop();
      await traced.finish();
      for (const delivery of received) {
        expect(String(delivery.headers.traceparent)).toMatch(
          new RegExp(`^00-${caller.traceId}-[0-9a-f]{16}-01$`),
        );
      }
    },
  );

  it.skipIf(skip)(
    'a reply paused on server 1 and approved on server 2 goes on in the caller’s trace; its webhook too',
    { timeout: 90_000 },
    async () => {
      const database = await create();
      cleanup.push(() => database.dispose());
      const receiver = await startReceiver(() => ({ status: 200 }));
      cleanup.push(() => receiver.close());
      const traced = await startTracedTest();
      const one = await startNode(database, traced);
      const two = await startNode(database, traced);
      const subscribed = await post(one.url, '/api/webhooks', {
        url: receiver.url,
        events: ['reply.awaiting_approval'],
      });
      expect(subscribed.status).toBe(201);

      const caller = callerTrace();
      const channelId = randomUUID();
      const asked = await post(
        one.url,
        `/api/messaging/channels/${channelId}/messages`,
        { entityId: 'user-1', text: 'weather?', mode: 'sync' },
        caller.traceparent,
      );
      expect(asked.status).toBe(202);
      const { replyId } = (await asked.json()) as { replyId: string };

      const decider = callerTrace();
      const approved = await post(
        two.url,
        `/api/messaging/replies/${replyId}/approvals`,
        { toolCallId: 'call_1', approved: true },
        decider.traceparent,
      );
      expect(approved.status).toBe(202);
      const events = await (
        await fetch(`${two.url}/api/messaging/replies/${replyId}/events`)
      ).text();
      expect(JSON.stringify(parseSse(events))).toContain('Sunny in Paris');
      const [delivery] = await until(
        () => receiver.received,
        (received) => received.length > 0,
      );
      await one.server.stop();
      await two.server.stop();
      const spans = await traced.finish();

      // The receiver was sent the trace of the request that paused the reply.
      expect(String(delivery!.headers.traceparent)).toMatch(
        new RegExp(`^00-${caller.traceId}-[0-9a-f]{16}-01$`),
      );
      const [webhook] = spans.filter((span) => span.attributes['parley.webhook.delivery_id']);
      expect(webhook).toMatchObject({ traceId: caller.traceId, kind: 3, name: 'POST' });
      expect(String(delivery!.headers.traceparent)).toContain(webhook!.spanId);

      const agents = byName(spans, 'invoke_agent Eliza');
      const paused = agents.find((span) => span.attributes['parley.reply.continued'] === undefined);
      const continued = agents.find((span) => span.attributes['parley.reply.continued'] === 'true');
      expect(paused).toMatchObject({ traceId: caller.traceId });
      // Its own invoke_agent span, a child of the one that paused, linked to the decision's request.
      expect(continued).toMatchObject({
        traceId: caller.traceId,
        parentSpanId: paused!.spanId,
        attributes: { 'parley.reply.id': replyId },
      });
      const [decision] = byName(spans, 'POST /api/messaging/replies/:replyId/approvals');
      expect(decision).toMatchObject({
        traceId: decider.traceId,
        attributes: { 'parley.reply.id': replyId },
      });
      expect(continued!.links).toContainEqual({
        traceId: decider.traceId,
        spanId: decision!.spanId,
      });
      const [tool] = byName(spans, 'execute_tool GET_WEATHER');
      expect(tool).toMatchObject({ traceId: caller.traceId, parentSpanId: continued!.spanId });
    },
  );
});
