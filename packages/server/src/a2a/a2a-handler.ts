import { randomUUID } from 'node:crypto';
import {
  assertDecideOnRequest,
  requestPerson,
  type RequestPerson,
} from '../identity/channel-access';
import {
  ParleyError,
  approvalDecisionSchema,
  isUuid,
  messageTextSchema,
  parseOrThrow,
  type ApprovalDecisionInput,
} from '@parley/core';
import {
  AgentCard,
  Role,
  TaskState,
  type CancelTaskRequest,
  type Message,
  type Task,
} from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  JsonRpcTransportHandler,
  ServerCallContext,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
  type TaskStore,
  type User,
} from '@a2a-js/sdk/server';
import { DatabaseTaskStore } from '@a2a-js/sdk/server/database';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import type { Context } from 'hono';
import type { AgentProfile } from '../agents/agent-profile';
import { maskCharacter } from '../agents/agent-view';
import { redactText } from '../redaction/redact';
import type { AppEnv } from '../http/app-env';
import { createSseStream } from '../http/sse-stream';
import type { MessagingService } from '../messaging/messaging-service';
import { followReply } from '../openai/reply-content';
import { isFinalPart, type ReplyFinalPart } from '../reply/parts/reply-part';
import type { ReplyStream } from '../reply/parts/reply-stream';
import { A2A_TASK_TABLE } from './a2a-task-migration';
import {
  A2A_PATH,
  A2A_SOURCE,
  type A2AFaceContext,
  channelOfContext,
  namedUuid,
} from './a2a-paths';

/** Who calls the A2A face: a signed-in person, or the operator (no person). Their tasks are theirs alone. */
class Caller implements User {
  constructor(
    readonly person: RequestPerson | undefined,
    /** FORBIDDEN unless they may decide the reply's approvals (as at `POST …/replies/{id}/approvals`). */
    readonly mayDecide: (replyId: string) => Promise<void>,
  ) {}
  get isAuthenticated(): boolean {
    return true;
  }
  get userName(): string {
    return this.person?.entityId ?? 'operator';
  }
}

const personOf = (context: ServerCallContext): RequestPerson | undefined =>
  context.user instanceof Caller ? context.user.person : undefined;

/** The base URL the caller reached the server at (the card's interface URL is built from it). */
function baseUrlOf(c: Context<AppEnv>): string {
  const url = new URL(c.req.url);
  return `${url.protocol}//${url.host}`;
}

/** An agent's card: its name and bio, a skill per action, the server's auth as security schemes. */
export function agentCard(
  agent: AgentProfile,
  context: A2AFaceContext,
  baseUrl: string,
): AgentCard {
  // Redacted as the agent details are: the card is open, and a bio may quote a secret the character holds.
  const bio = maskCharacter(agent.character).bio;
  const description =
    (Array.isArray(bio) ? bio.filter((line) => typeof line === 'string').join(' ') : '') ||
    (typeof bio === 'string' ? bio : '') ||
    `${agent.character.name}, a Parley agent`;
  const actions = context.actionsOf(agent.agentId);
  const requirement = { schemes: { apiKey: { list: [] }, bearer: { list: [] } } };
  return {
    name: agent.character.name,
    description,
    supportedInterfaces: [
      {
        url: `${baseUrl}${A2A_PATH}/${agent.agentId}`,
        protocolBinding: 'JSONRPC',
        tenant: '',
        protocolVersion: '1.0',
      },
    ],
    provider: { organization: 'Parley', url: baseUrl },
    version: context.version,
    capabilities: { streaming: true, pushNotifications: false, extensions: [] },
    securitySchemes: context.authRequired
      ? {
          apiKey: {
            scheme: {
              $case: 'apiKeySecurityScheme',
              value: { description: 'The server token', location: 'header', name: 'x-api-key' },
            },
          },
          bearer: {
            scheme: {
              $case: 'httpAuthSecurityScheme',
              value: { description: 'The server token', scheme: 'bearer', bearerFormat: '' },
            },
          },
        }
      : {},
    securityRequirements: context.authRequired ? [requirement] : [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: actions.map((action) => ({
      id: action.name,
      name: action.name,
      description: redactText(action.description ?? action.name),
      tags: ['action'],
      examples: [],
      inputModes: ['text/plain'],
      outputModes: ['text/plain'],
      securityRequirements: [],
    })),
    signatures: [],
  } as unknown as AgentCard;
}

const now = () => new Date().toISOString();

/** One decision sent on a task: a data part `{ "approval": { "toolCallId", "approved", "reason"? } }`. */
type ApprovalAnswer = ApprovalDecisionInput;

/**
 * The approval decisions a message carries in its data parts (the channel API's decision shape under
 * `approval`), or the problem of the first part that is not a decision.
 */
function approvalsOf(message: Message | undefined): {
  decisions: ApprovalAnswer[];
  problem?: string;
} {
  const decisions: ApprovalAnswer[] = [];
  for (const part of message?.parts ?? []) {
    if (part.content?.$case !== 'data') continue;
    const data: unknown = part.content.value;
    if (typeof data !== 'object' || data === null || !('approval' in data)) continue;
    try {
      decisions.push(parseOrThrow(approvalDecisionSchema, data.approval, 'approval'));
    } catch (error) {
      return { decisions, problem: error instanceof Error ? error.message : 'bad approval' };
    }
  }
  return { decisions };
}

/** The reply a task follows, as its metadata holds it (so any process can cancel it). */
function replyOfTask(task: Task): string | undefined {
  const id = (task.metadata as { parleyReplyId?: unknown } | undefined)?.parleyReplyId;
  return typeof id === 'string' && isUuid(id) ? id : undefined;
}

/** The text of a message: its text parts, joined. */
function textOf(message: Message | undefined): string {
  return (message?.parts ?? [])
    .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
    .join('');
}

function agentMessage(taskId: string, contextId: string, text: string): Message {
  return {
    messageId: namedUuid(`parley:a2a-answer:${taskId}:${text.length}`),
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts: [
      {
        content: { $case: 'text', value: text },
        metadata: undefined,
        filename: '',
        mediaType: 'text/plain',
      },
    ],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** A status event of a task: `state`, with `text` as the agent's message when given. */
function statusEvent(taskId: string, contextId: string, state: TaskState, text?: string) {
  return AgentEvent.statusUpdate({
    taskId,
    contextId,
    status: {
      state,
      message: text === undefined ? undefined : agentMessage(taskId, contextId, text),
      timestamp: now(),
    },
    metadata: undefined,
  });
}

/**
 * The executor of one agent's tasks: a task per reply. The user's message is posted through the one conversation
 * entry (`MessagingService.converse`) into the context's channel; the reply's text streams as the task's
 * artifact; its end makes the task completed, a pause for approvals input-required, a failure failed, a cancel
 * canceled.
 */
class ReplyExecutor implements AgentExecutor {
  readonly #replies = new Map<string, string>();
  readonly #canceled = new Set<string>();
  readonly #running = new Set<string>();
  constructor(
    private readonly agent: AgentProfile,
    private readonly context: A2AFaceContext,
    private readonly tasks: TaskStore,
  ) {}

  /** Whether this process runs the task's reply (then its own cancel reaches it through the event bus). */
  runs(taskId: string): boolean {
    return this.#running.has(taskId);
  }

  /**
   * After a pause for approvals the task is input-required and its event stream has ended; the reply goes on
   * once the calls are decided (through the channel API). This follows it to its end, wherever it goes on, and
   * stores the task's final state, so that `GetTask` shows completed (canceled, failed) with the answer.
   */
  async #followAfterPause(
    call: ServerCallContext,
    taskId: string,
    contextId: string,
    replyId: string,
    channelId: string,
  ) {
    try {
      const stream = await this.context.messaging.openReply(replyId, channelId);
      const final = await new Promise<ReplyFinalPart>((resolve) => {
        const stop = stream.subscribe((part) => {
          if (isFinalPart(part)) {
            queueMicrotask(() => stop());
            resolve(part);
          }
        });
      });
      let state: TaskState;
      let text: string;
      switch (final.type) {
        case 'reply-pause':
          // Paused again (another call to approve): the task stays input-required (not followed further).
          return;
        case 'reply-end':
          state = TaskState.TASK_STATE_COMPLETED;
          text = final.text;
          break;
        case 'error':
          state =
            final.code === 'CANCELLED'
              ? TaskState.TASK_STATE_CANCELED
              : TaskState.TASK_STATE_FAILED;
          text = final.message;
          break;
        default:
          return final satisfies never;
      }
      const task = await this.tasks.load(taskId, call);
      if (!task) return;
      task.status = { state, message: agentMessage(taskId, contextId, text), timestamp: now() };
      await this.tasks.save(task, call);
    } catch {
      // The reply is gone (expired, or in no store): the task stays as it was.
    }
  }

  async execute(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = request;
    const user = request.userMessage;
    const status = (state: TaskState, text?: string) => statusEvent(taskId, contextId, state, text);
    const asked = approvalsOf(user);
    if (request.task && (asked.problem !== undefined || asked.decisions.length > 0)) {
      // A follow-up turn starts with its task, as the SDK asks of every turn.
      bus.publish(AgentEvent.task(request.task));
      const state = request.task.status?.state ?? TaskState.TASK_STATE_WORKING;
      if (asked.problem !== undefined) bus.publish(status(state, asked.problem));
      else if (state === TaskState.TASK_STATE_INPUT_REQUIRED) {
        await this.#decide(request, bus, asked.decisions);
      } else bus.publish(status(state, 'This task is not waiting for approvals'));
      bus.finished();
      return;
    }
    const person = personOf(request.context);
    const channelId = channelOfContext(this.agent.agentId, contextId, person?.entityId);
    // The task is published once its reply has started, so that it names the reply from the first (any process
    // that is asked to cancel the task reads the reply from it); a refusal publishes it failed.
    const task: Task = {
      id: taskId,
      contextId,
      status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: now() },
      artifacts: [],
      history: [user],
      metadata: { parleyChannelId: channelId },
    };
    const publishTask = (replyId?: string) => {
      if (request.task) return;
      bus.publish(
        AgentEvent.task(
          replyId === undefined
            ? task
            : { ...task, metadata: { ...task.metadata, parleyReplyId: replyId } },
        ),
      );
    };
    const text = textOf(user);
    if (text.trim() === '') {
      publishTask();
      bus.publish(status(TaskState.TASK_STATE_FAILED, 'The message has no text part'));
      bus.finished();
      return;
    }
    this.#running.add(taskId);
    let reply;
    try {
      // A person speaks as themselves, in a channel they may post into.
      await person?.authorize(channelId);
      ({ reply } = await this.context.messaging.converse({
        channelId,
        text: parseOrThrow(messageTextSchema, text, 'message'),
        entityId: person?.entityId ?? namedUuid(`parley:a2a-user:${contextId}`),
        senderName: 'A2A client',
        metadata: { a2a: { taskId, contextId } },
        agentId: this.agent.agentId,
        source: A2A_SOURCE,
        idempotencyKey: user.messageId ? `a2a:${user.messageId}` : undefined,
        delivery: 'a2a',
      }));
    } catch (error) {
      publishTask();
      bus.publish(
        // A refusal (too long, busy, rate) says why; anything else is not shown.
        status(
          TaskState.TASK_STATE_FAILED,
          error instanceof ParleyError ? error.message : 'The reply could not start',
        ),
      );
      this.#running.delete(taskId);
      this.#canceled.delete(taskId);
      bus.finished();
      return;
    }
    this.#replies.set(taskId, reply.replyId);
    publishTask(reply.replyId);
    // Cancelled while the message was being posted: the reply started is cancelled at once.
    if (this.#canceled.has(taskId)) {
      await this.context.messaging.cancelReply(reply.replyId).catch(() => undefined);
    }
    await this.#follow(request.context, bus, taskId, contextId, reply, channelId, 'answer');
    bus.finished();
  }

  /**
   * Streams `reply` into the task from now on: its text as pieces of one artifact, then the final state
   * (completed, input-required at a pause for approvals, canceled, failed).
   */
  async #follow(
    call: ServerCallContext,
    bus: ExecutionEventBus,
    taskId: string,
    contextId: string,
    reply: ReplyStream,
    channelId: string,
    artifact: string,
  ): Promise<void> {
    const status = (state: TaskState, text?: string) => statusEvent(taskId, contextId, state, text);
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: now() },
        metadata: { parleyReplyId: reply.replyId, parleyChannelId: channelId },
      }),
    );
    let content = '';
    let first = true;
    await new Promise<void>((resolve) => {
      const stop = followReply(reply, {
        text: (piece) => {
          content += piece;
          bus.publish(
            AgentEvent.artifactUpdate({
              taskId,
              contextId,
              artifact: {
                artifactId: `${taskId}-${artifact}`,
                name: 'answer',
                description: '',
                parts: [
                  {
                    content: { $case: 'text', value: piece },
                    metadata: undefined,
                    filename: '',
                    mediaType: 'text/plain',
                  },
                ],
                metadata: undefined,
                extensions: [],
              },
              append: !first,
              lastChunk: false,
              metadata: undefined,
            }),
          );
          first = false;
        },
        end: (final) => {
          if (this.#canceled.has(taskId)) {
            bus.publish(status(TaskState.TASK_STATE_CANCELED));
          } else {
            switch (final.type) {
              case 'error':
                bus.publish(
                  final.code === 'CANCELLED'
                    ? status(TaskState.TASK_STATE_CANCELED)
                    : status(TaskState.TASK_STATE_FAILED, final.message),
                );
                break;
              case 'reply-pause':
                bus.publish(status(TaskState.TASK_STATE_INPUT_REQUIRED, content));
                void this.#followAfterPause(call, taskId, contextId, reply.replyId, channelId);
                break;
              case 'reply-end':
                bus.publish(status(TaskState.TASK_STATE_COMPLETED, content));
                break;
              default:
                final satisfies never;
            }
          }
          this.#replies.delete(taskId);
          this.#canceled.delete(taskId);
          this.#running.delete(taskId);
          queueMicrotask(() => stop());
          resolve();
        },
      });
    });
  }

  /**
   * A message on a task waiting for approvals whose data parts decide them (`{ "approval": { "toolCallId",
   * "approved", "reason"? } }`): taken as the channel API takes decisions (only those who may decide the reply's
   * calls), then the reply goes on in the task. A refused decision leaves the task input-required, saying why.
   */
  async #decide(
    request: RequestContext,
    bus: ExecutionEventBus,
    decisions: readonly ApprovalAnswer[],
  ): Promise<void> {
    const { taskId, contextId } = request;
    const task = request.task!;
    const replyId = replyOfTask(task);
    const channelId = (task.metadata as { parleyChannelId?: unknown } | undefined)?.parleyChannelId;
    const waiting = (text: string) =>
      statusEvent(taskId, contextId, TaskState.TASK_STATE_INPUT_REQUIRED, text);
    if (!replyId || typeof channelId !== 'string') {
      bus.publish(waiting('This task names no reply to decide'));
      return;
    }
    const caller = request.context.user instanceof Caller ? request.context.user : undefined;
    try {
      await caller?.mayDecide(replyId);
      for (const decision of decisions) {
        await this.context.messaging.decideApproval(
          replyId,
          {
            toolCallId: decision.toolCallId,
            approved: decision.approved,
            ...(decision.reason === undefined ? {} : { reason: decision.reason }),
            decidedBy: caller?.person ? `user:${caller.person.entityId}` : A2A_SOURCE,
          },
          channelId,
        );
      }
      const reply = await this.context.messaging.openReply(replyId, channelId);
      this.#running.add(taskId);
      this.#replies.set(taskId, replyId);
      await this.#follow(
        request.context,
        bus,
        taskId,
        contextId,
        reply,
        channelId,
        `answer-${randomUUID()}`,
      );
    } catch (error) {
      // A refusal (not theirs to decide, already decided, unknown call) says why; anything else is not shown.
      bus.publish(
        waiting(error instanceof ParleyError ? error.message : 'The decision could not be taken'),
      );
    }
  }

  async cancelTask(taskId: string): Promise<void> {
    // Only a running task is marked: the marks of tasks that ended (or never ran here) would pile up.
    if (!this.#running.has(taskId)) return;
    this.#canceled.add(taskId);
    const replyId = this.#replies.get(taskId);
    if (replyId) await this.context.messaging.cancelReply(replyId).catch(() => undefined);
  }
}

/**
 * The SDK's request handler, with a cancel that reaches a reply running on another process: the SDK cancels
 * through the executor only where the task's event bus is (the process running it); elsewhere it only marks the
 * task canceled, and the reply would go on and complete it again. Here the reply the task names is cancelled
 * first, wherever it runs (`MessagingService.cancelReply` is cluster-wide), and its end marks the task there.
 */
class TaskRequestHandler extends DefaultRequestHandler {
  constructor(
    card: AgentCard,
    private readonly tasks: TaskStore,
    private readonly executor: ReplyExecutor,
    private readonly messaging: MessagingService,
  ) {
    super(card, tasks, executor);
  }

  override async cancelTask(params: CancelTaskRequest, call: ServerCallContext): Promise<Task> {
    if (!this.executor.runs(params.id)) {
      const task = await this.tasks.load(params.id, call);
      const replyId = task && replyOfTask(task);
      // Already ended or unknown: the SDK's own cancel answers (canceled, or not cancelable).
      if (replyId) await this.messaging.cancelReply(replyId).catch(() => undefined);
    }
    return super.cancelTask(params, call);
  }
}

/** JSON-RPC error codes the face answers itself (before the SDK's handler). */
const PARSE_ERROR = -32700;

/** The A2A face's requests, answered through the SDK (imported by `a2aRoutes` at the first request). */
export interface A2AHandler {
  /** The card of an agent (the default agent's without an id), or 404. */
  card(c: Context<AppEnv>, agentId: string | undefined): Response;
  /** A JSON-RPC request to `/a2a/{agentId}`. */
  call(c: Context<AppEnv>): Promise<Response>;
}

/** Answers the A2A face's requests (see `a2aRoutes`). */
export function createA2AHandler(context: A2AFaceContext): A2AHandler {
  const handlers = new Map<
    string,
    { baseUrl: string; rpc: JsonRpcTransportHandler; legacy: LegacyJsonRpcTransportHandler }
  >();

  const agentOf = (id: string | undefined): AgentProfile | undefined => {
    const agent = id === undefined ? context.agents.defaultAgent : context.agents.find(id);
    return agent && !context.agents.isStopped(agent.agentId) ? agent : undefined;
  };
  const handlerOf = (agent: AgentProfile, baseUrl: string) => {
    const key = agent.agentId;
    let entry = handlers.get(key);
    if (!entry || entry.baseUrl !== baseUrl) {
      // The owner is the agent and the caller: a task is found only at its agent, by whoever created it.
      const tasks = new DatabaseTaskStore(context.db, {
        tableName: A2A_TASK_TABLE,
        ownerResolver: (call) => `${agent.agentId}:${call.user?.userName ?? 'operator'}`,
      });
      const executor = new ReplyExecutor(agent, context, tasks);
      const handler = new TaskRequestHandler(
        agentCard(agent, context, baseUrl),
        tasks,
        executor,
        context.messaging,
      );
      entry = {
        baseUrl,
        rpc: new JsonRpcTransportHandler(handler),
        legacy: new LegacyJsonRpcTransportHandler(handler),
      };
      handlers.set(key, entry);
    }
    return entry;
  };
  const notFound = (c: Context<AppEnv>) =>
    c.json({ error: { code: 'NOT_FOUND', message: 'No such agent' } }, 404);

  const card = (c: Context<AppEnv>, agentId: string | undefined): Response => {
    const agent = agentOf(agentId);
    return agent
      ? c.json(AgentCard.toJSON(agentCard(agent, context, baseUrlOf(c))) as object)
      : notFound(c);
  };

  const call = async (c: Context<AppEnv>): Promise<Response> => {
    // A signed-in person has tasks of their own (another's is "task not found") in channels of theirs.
    const callContext = new ServerCallContext({
      user: new Caller(requestPerson(c), (replyId) => assertDecideOnRequest(c, replyId)),
    });
    const agent = agentOf(c.req.param('agentId'));
    if (!agent) return notFound(c);
    let body: unknown;
    try {
      body = JSON.parse(await c.req.text());
    } catch {
      return c.json({
        jsonrpc: '2.0',
        id: null,
        error: { code: PARSE_ERROR, message: 'Parse error' },
      });
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      return c.json({
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32600,
          message: 'Invalid Request: the body must be a JSON-RPC request object',
        },
      });
    }
    const id = (body as { id?: unknown }).id ?? null;
    const entry = handlerOf(agent, baseUrlOf(c));
    // A2A 0.3 names its methods with a slash (`message/send`, `tasks/get`); 1.0 does not (`SendMessage`).
    const method = (body as { method?: unknown }).method;
    const legacy = typeof method === 'string' && method.includes('/');
    const mapError = (error: unknown) =>
      legacy
        ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(error)
        : JsonRpcTransportHandler.mapToJSONRPCError(error);
    let result;
    try {
      const request = body as Record<string, unknown>;
      result = legacy
        ? await entry.legacy.handle(request, callContext)
        : await entry.rpc.handle(request, callContext);
    } catch (error) {
      return c.json({
        jsonrpc: '2.0',
        id,
        error: mapError(error),
      });
    }
    if (!(typeof result === 'object' && result !== null && Symbol.asyncIterator in result)) {
      return c.json(result);
    }
    const iterator = result[Symbol.asyncIterator]();
    let firstResult;
    try {
      firstResult = await iterator.next();
    } catch (error) {
      return c.json({
        jsonrpc: '2.0',
        id,
        error: mapError(error),
      });
    }
    const sse = createSseStream(context.sseKeepAliveMs);
    void (async () => {
      try {
        if (!firstResult.done) sse.sendData(firstResult.value);
        while (!sse.signal.aborted) {
          const next = await iterator.next();
          if (next.done) break;
          sse.sendData(next.value);
        }
      } catch (error) {
        sse.send('error', {
          jsonrpc: '2.0',
          id,
          error: mapError(error),
        });
      } finally {
        sse.close();
        await iterator.return?.(undefined).catch(() => undefined);
      }
    })();
    return sse.response;
  };

  return { card, call };
}
