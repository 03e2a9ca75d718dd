import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer, type Server } from 'node:http';
import { Writable } from 'node:stream';
import type { SocketAck } from '@parley/core';
import type { AddressInfo } from 'node:net';
import { definePlugin } from '@parley/plugin-sdk';
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { weatherAction, type ActionCall } from '../../test/agent-loop-fixture';
import { copyPGliteTemplate } from '../../test/databases';
import { connectClient, joinRoom } from '../../test/socket-client';
import { ScriptedModel } from '../../test/scripted-model';
import { sharedSecretPeople, weatherWhenAsked } from '../../test/shared-secret-people';
import { startTestServer, type TestServer } from '../../test/test-server';
import { createDatabase } from '../storage/create-database';
import { AuditStore } from './audit-store';

/**
 * The audit log from outside: a real server with the operator's token and three HS256 people (an admin and two
 * users); admin actions done over HTTP, and approvals decided through each door (REST, the socket, the UI chat,
 * A2A), where another person's try at deciding is refused and writes no row.
 */
const TEST_SECRET = 'audit-test-secret-of-forty-characters!!!';
const OPERATOR_TOKEN = 'audit-operator-token-never-logged';
const { idOf, tokenFor } = sharedSecretPeople(TEST_SECRET);

interface Entry {
  seq: number;
  at: string;
  actor: { kind: string; id: string | null; name: string | null };
  action: string;
  target: string | null;
  detail: Record<string, unknown>;
  requestId: string | null;
}
interface Page {
  entries: Entry[];
  nextBefore: number | null;
}

describe('audit log', () => {
  let test: TestServer;
  let receiver: Server;
  let receiverUrl: string;
  const lines: string[] = [];
  const calls: ActionCall[] = [];
  const tokens = new Map<string, string>();
  const model = new ScriptedModel();

  beforeAll(async () => {
    receiver = createHttpServer((_request, response) => response.end('ok'));
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    model.behaviour = weatherWhenAsked();
    test = await startTestServer({
      model,
      plugins: [
        definePlugin({
          name: 'audit-test',
          actions: [weatherAction(calls, { needsApproval: true })],
        }),
      ],
      approvals: { timeoutMs: 60_000, sweepMs: 100 },
      agentManagement: { enabled: true, maxAgents: 5 },
      webhooks: { privateTargets: ['127.0.0.1'] },
      rateLimit: false,
      authToken: OPERATOR_TOKEN,
      env: { AUTH_JWT_SECRET: TEST_SECRET },
      logger: pino(
        { level: 'info' },
        new Writable({
          write(chunk: Buffer, _encoding, done) {
            lines.push(chunk.toString());
            done();
          },
        }),
      ),
    });
    tokens.set('root', await tokenFor('root', ['admin']));
    tokens.set('alice', await tokenFor('alice', ['user']));
    tokens.set('mallory', await tokenFor('mallory', ['user']));
  }, 60_000);
  afterAll(async () => {
    await test?.[Symbol.asyncDispose]();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  /** As `who`: `operator` sends the server token, anyone else their JWT. */
  const as = (who: string, method: string, path: string, body?: unknown) =>
    fetch(`${test.url}${path}`, {
      method,
      headers: {
        ...(who === 'operator'
          ? { 'x-api-key': OPERATOR_TOKEN }
          : { authorization: `Bearer ${tokens.get(who)!}` }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const audit = async (query: string): Promise<Page> => {
    const response = await as('operator', 'GET', `/api/audit?${query}`);
    expect(response.status).toBe(200);
    return ((await response.json()) as { data: Page }).data;
  };
  /** The newest row's seq: unchanged across a refused attempt, which writes no row. */
  const newestSeq = async () => (await audit('limit=1')).entries[0]?.seq ?? 0;
  const createAgent = async (name: string) => {
    const created = await as('operator', 'POST', '/api/agents', { characterJson: { name } });
    expect(created.status).toBe(201);
    return ((await created.json()) as { data: { id: string } }).data.id;
  };

  it('names the operator and an admin person as the actors of agent actions, newest first', async () => {
    const agentId = await createAgent('Audited');
    expect((await as('root', 'POST', `/api/agents/${agentId}/stop`)).status).toBe(200);
    expect((await as('root', 'PATCH', `/api/agents/${agentId}`, { bio: 'changed' })).status).toBe(
      200,
    );
    expect((await as('operator', 'DELETE', `/api/agents/${agentId}`)).status).toBe(204);

    const { entries } = await audit(`target=${agentId}`);
    expect(entries.map((e) => [e.action, e.actor.kind, e.actor.id])).toEqual([
      ['agent.delete', 'operator', '00000000-0000-0000-0000-000000000000'],
      ['agent.update', 'person', idOf('root')],
      ['agent.stop', 'person', idOf('root')],
      ['agent.create', 'operator', '00000000-0000-0000-0000-000000000000'],
    ]);
    expect(entries[3]!.detail).toEqual({ name: 'Audited' });
    expect(entries.every((e) => typeof e.requestId === 'string' && e.requestId !== '')).toBe(true);
    // The filters: by action and by actor (an entity id or a kind).
    const byRoot = await audit(`actor=${idOf('root')}&target=${agentId}`);
    expect(byRoot.entries.map((e) => e.action)).toEqual(['agent.update', 'agent.stop']);
    const deletes = await audit(`action=agent.delete&actor=operator&target=${agentId}`);
    expect(deletes.entries).toHaveLength(1);
    const future = await audit(
      `target=${agentId}&since=${new Date(Date.now() + 60_000).toISOString()}`,
    );
    expect(future.entries).toHaveLength(0);
  });

  it('records a person approving the tool call of their own reply, and no refused action', async () => {
    const created = await as('alice', 'POST', '/api/messaging/channels', { name: 'mine' });
    expect(created.status).toBe(201);
    const channel = ((await created.json()) as { data: { id: string } }).data.id;
    const paused = await as('alice', 'POST', `/api/messaging/channels/${channel}/messages`, {
      text: 'weather?',
      mode: 'sync',
    });
    expect(paused.status).toBe(202);
    const { replyId } = (await paused.json()) as { replyId: string };
    const decided = await as('alice', 'POST', `/api/messaging/replies/${replyId}/approvals`, {
      toolCallId: 'call_1',
      approved: true,
    });
    expect(decided.status).toBe(202);

    const { entries } = await audit(`target=${replyId}`);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      action: 'approval.decide',
      actor: { kind: 'person', id: idOf('alice'), name: 'alice' },
      detail: { toolCallId: 'call_1', decision: 'approved', channelId: channel },
    });

    // A person is refused the audit and the admin doors; the refusals write no row.
    const before = (await audit('limit=1')).entries[0]!.seq;
    const refused = await Promise.all([
      as('alice', 'GET', '/api/audit'),
      as('alice', 'POST', '/api/agents', { characterJson: { name: 'Mallory' } }),
      as('alice', 'DELETE', `/api/messaging/channels/${channel}`),
    ]);
    expect(refused[0].status).toBe(403);
    expect(refused[1].status).toBe(403);
    // Alice owns her channel and may delete it: not an admin action, not audited.
    expect(refused[2].status).toBe(200);
    expect((await audit('limit=1')).entries[0]!.seq).toBe(before);
    const denied = lines
      .map(
        (line) => JSON.parse(line) as { msg: string; audit?: { outcome?: string; path?: string } },
      )
      .filter((line) => line.msg === 'audit' && line.audit?.outcome === 'denied');
    expect(denied.map((line) => line.audit!.path)).toContain('/api/agents');
  }, 60_000);

  it('records a decision over the socket as whoever signed in on it', async () => {
    const created = await as('alice', 'POST', '/api/messaging/channels', { name: 'by socket' });
    const channel = ((await created.json()) as { data: { id: string } }).data.id;
    const paused = await as('alice', 'POST', `/api/messaging/channels/${channel}/messages`, {
      text: 'weather?',
      mode: 'sync',
    });
    expect(paused.status).toBe(202);
    const { replyId } = (await paused.json()) as { replyId: string };
    // Root, an admin person, decides it over the socket.
    const root = await connectClient(test.url, 'websocket', {
      auth: { token: tokens.get('root')! },
    });
    try {
      expect((await joinRoom(root, channel, idOf('root'))).status).toBe('ok');
      const ack: SocketAck = await root.emitWithAck('decideApproval', {
        replyId,
        roomId: channel,
        toolCallId: 'call_1',
        approved: false,
      });
      expect(ack).toMatchObject({ status: 'ok' });
    } finally {
      root.disconnect();
    }
    const { entries } = await audit(`target=${replyId}`);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      action: 'approval.decide',
      actor: { kind: 'person', id: idOf('root') },
      detail: { decision: 'denied', decidedBy: `socket:${idOf('root')}` },
      requestId: null,
    });
  }, 60_000);

  it('records a decision through the UI chat as the person who sent it, and none for another person', async () => {
    const agentId = test.server.agents.defaultAgent.agentId;
    const chat = `/api/messaging/ui-chat/${agentId}`;
    const question = {
      id: randomUUID(),
      role: 'user',
      parts: [{ type: 'text', text: 'weather?' }],
    };
    const paused = await as('alice', 'POST', chat, { id: 'audited-chat', messages: [question] });
    expect(paused.status).toBe(200);
    const replyId = paused.headers.get('x-parley-reply-id')!;
    const channel = paused.headers.get('x-parley-channel-id')!;
    expect(await paused.text()).toContain('"type":"tool-approval-request"');
    // The reply's message as useChat holds it once the person answered (`addToolApprovalResponse`).
    const answered = {
      id: replyId,
      role: 'assistant',
      parts: [
        {
          type: 'tool-GET_WEATHER',
          state: 'approval-responded',
          toolCallId: 'call_1',
          approval: { id: 'call_1', approved: true },
        },
      ],
    };
    const body = { id: 'audited-chat', messages: [question, answered] };

    // Mallory sends Alice's answer (same chat id, her reply's id): refused, and no row.
    const before = await newestSeq();
    const refused = await as('mallory', 'POST', chat, body);
    expect(refused.status).toBe(403);
    expect(await newestSeq()).toBe(before);

    const decided = await as('alice', 'POST', chat, body);
    expect(decided.status).toBe(200);
    expect(await decided.text()).toContain('Sunny in Paris');
    const { entries } = await audit(`target=${replyId}`);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      action: 'approval.decide',
      actor: { kind: 'person', id: idOf('alice'), name: 'alice' },
      detail: {
        toolCallId: 'call_1',
        decision: 'approved',
        channelId: channel,
        decidedBy: 'ui-chat',
      },
    });
  }, 60_000);

  it('records a decision through A2A as the person who sent it, and none for another person', async () => {
    const agentId = test.server.agents.defaultAgent.agentId;
    const send = async (who: string, parts: unknown[], taskId?: string) => {
      const response = await as(who, 'POST', `/a2a/${agentId}`, {
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: { message: { messageId: randomUUID(), taskId, role: 'ROLE_USER', parts } },
      });
      expect(response.status).toBe(200);
      return (await response.json()) as {
        result?: {
          task: {
            id: string;
            status: { state: string };
            metadata: { parleyReplyId: string; parleyChannelId: string };
          };
        };
        error?: { code: number; message: string };
      };
    };
    const paused = (await send('alice', [{ text: 'weather?' }])).result!.task;
    expect(paused.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const { parleyReplyId: replyId, parleyChannelId: channel } = paused.metadata;
    const decision = [
      { data: { approval: { toolCallId: 'call_1', approved: false, reason: 'no' } } },
    ];

    // Mallory answers on Alice's task: not hers to see, refused, and no row.
    const before = await newestSeq();
    const refused = await send('mallory', decision, paused.id);
    expect(refused.error?.code).toBe(-32001);
    expect(await newestSeq()).toBe(before);

    const decided = (await send('alice', decision, paused.id)).result!.task;
    expect(decided.status.state).toBe('TASK_STATE_COMPLETED');
    const { entries } = await audit(`target=${replyId}`);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      action: 'approval.decide',
      actor: { kind: 'person', id: idOf('alice'), name: 'alice' },
      detail: {
        toolCallId: 'call_1',
        decision: 'denied',
        channelId: channel,
        decidedBy: `user:${idOf('alice')}`,
        hasReason: true,
      },
    });
  }, 60_000);

  it('pages stay whole while 20 actions land at once: no duplicate, no gap', async () => {
    const agentId = await createAgent('Paged');
    const toggle = (i: number) =>
      as(i % 2 ? 'root' : 'operator', 'POST', `/api/agents/${agentId}/${i % 2 ? 'stop' : 'start'}`);
    const first = await Promise.all(Array.from({ length: 20 }, (_, i) => toggle(i)));
    expect(first.map((r) => r.status)).toEqual(Array(20).fill(200));
    const settled = (await audit(`target=${agentId}&limit=200`)).entries.map((e) => e.seq);
    expect(settled).toHaveLength(21);

    // Page back 3 at a time while 20 more actions are released together.
    const seen: number[] = [];
    const paging = (async () => {
      let before: number | null | undefined;
      do {
        const page = await audit(
          `target=${agentId}&limit=3${before === undefined ? '' : `&before=${before}`}`,
        );
        seen.push(...page.entries.map((e) => e.seq));
        before = page.nextBefore;
      } while (before !== null);
    })();
    const second = await Promise.all(Array.from({ length: 20 }, (_, i) => toggle(i)));
    await paging;
    expect(second.map((r) => r.status)).toEqual(Array(20).fill(200));

    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual([...seen].sort((a, b) => b - a));
    for (const seq of settled) expect(seen).toContain(seq);
    const all = (await audit(`target=${agentId}&limit=200`)).entries.map((e) => e.seq);
    expect(all).toHaveLength(41);
    // Everything at or below the first page's newest row was seen: no gap.
    expect(seen).toEqual(all.filter((seq) => seq <= seen[0]!));
  }, 60_000);

  it('refuses bad queries with a clear 400', async () => {
    for (const [query, field] of [
      ['limit=201', 'limit'],
      ['limit=0', 'limit'],
      ['before=abc', 'before'],
      ['since=yesterday', 'since'],
      ['action=DROP%20TABLE', 'action'],
      ['unknown=1', 'Unrecognized key'],
    ] as const) {
      const response = await as('operator', 'GET', `/api/audit?${query}`);
      expect(response.status).toBe(400);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('BAD_REQUEST');
      expect(body.error.message).toContain(field);
    }
  });

  it('cannot be changed through any route', async () => {
    const { entries } = await audit('limit=200');
    expect(entries.length).toBeGreaterThan(0);
    const seq = entries[0]!.seq;
    const tries = await Promise.all(
      ['POST', 'PUT', 'PATCH', 'DELETE'].flatMap((method) =>
        [`/api/audit`, `/api/audit/${seq}`].flatMap((path) => [
          as('operator', method, path, { action: 'forged' }),
          as('root', method, path, { action: 'forged' }),
        ]),
      ),
    );
    for (const response of tries) expect(response.status).toBe(404);
    const after = await audit('limit=200');
    // Nothing changed, and the refused tries added nothing.
    expect(after.entries).toEqual(entries);
  });

  it('logs one audit line per action, with no secret in it', async () => {
    const created = await as('root', 'POST', '/api/webhooks', {
      url: receiverUrl,
      events: ['message.created'],
    });
    expect(created.status).toBe(201);
    const { id, secret } = ((await created.json()) as { data: { id: string; secret: string } })
      .data;
    expect(secret).toMatch(/^whsec_/);
    expect((await as('operator', 'DELETE', `/api/webhooks/${id}`)).status).toBe(200);

    const { entries } = await audit(`target=${id}`);
    expect(entries.map((e) => e.action)).toEqual(['webhook.delete', 'webhook.create']);
    expect(entries[1]!.detail).toEqual({
      host: new URL(receiverUrl).host,
      events: ['message.created'],
    });
    const auditLines = lines.filter(
      (line) => (JSON.parse(line) as { msg: string }).msg === 'audit',
    );
    const ofWebhook = auditLines.filter((line) => line.includes(id));
    expect(ofWebhook).toHaveLength(2);
    expect(JSON.parse(ofWebhook[0]!)).toMatchObject({
      audit: { action: 'webhook.create', target: id, actor: { kind: 'person', id: idOf('root') } },
    });
    for (const line of auditLines) {
      expect(line).not.toContain(secret);
      expect(line).not.toContain(OPERATOR_TOKEN);
      for (const token of tokens.values()) expect(line).not.toContain(token);
    }
    expect(JSON.stringify(await audit('limit=200'))).not.toContain(secret);
  });
});

describe('audit_log table', () => {
  it('refuses UPDATE, DELETE and TRUNCATE: append-only in the database too', async () => {
    const location = await copyPGliteTemplate();
    const database = createDatabase(location.location);
    try {
      const store = new AuditStore(database.db);
      const seq = await store.append({
        actor: { kind: 'system', id: null, name: null },
        action: 'test.append',
        target: 't',
        detail: { n: 1 },
        requestId: null,
        traceId: null,
      });
      await expect(
        database.db
          .updateTable('audit_log')
          .set({ action: 'forged' } as never)
          .execute(),
      ).rejects.toThrow(/append-only/);
      await expect(database.db.deleteFrom('audit_log').execute()).rejects.toThrow(/append-only/);
      await expect(sql`truncate audit_log`.execute(database.db)).rejects.toThrow(/append-only/);
      expect(await store.list({ limit: 10 })).toMatchObject([
        { seq, action: 'test.append', target: 't', detail: { n: 1 } },
      ]);
    } finally {
      await database.close();
      await location.dispose();
    }
  });
});
