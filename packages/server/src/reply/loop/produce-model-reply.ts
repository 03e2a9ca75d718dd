import { MAX_TOOL_CALLS_PER_REPLY, type StoredMessage } from '@parley/core';
import type { Content, Memory, State } from '@parley/plugin-sdk';
import type { Logger } from 'pino';
import type { AgentAbilities } from '../../agents/agent-abilities';
import type { AgentProfile } from '../../agents/agent-profile';
import { composeState } from '../../agents/compose-state';
import { toMemory } from '../../agents/to-memory';
import type { ModelMessage, ModelProvider } from '../../models/model-provider';
import type { MessageStore } from '../../storage/message-store';
import type { ToolCallRecord } from '../parts/reply-part';
import type { ReplyStream } from '../parts/reply-stream';
import { runToolStep } from '../tools/run-tool-step';
import { fitForStorage } from '../tools/storable-records';
import { buildPrompt } from './build-prompt';
import { ChunkCoalescer } from './chunk-coalescer';
import { loopLimitsFor, secretsOf, type AgentLoopLimits } from './loop-limits';
import { runModelStep, type ModelStepResult } from './model-step';
import { callsOf, toModelTool } from './step-calls';
import { offeredActions } from './offered-actions';
import type { ReplyExtractor } from './reply-extractor';
import { toReplyError } from './reply-failure';
import { runEvaluators } from './run-evaluators';

/** What producing a model reply needs. */
export interface ModelReplyContext {
  store: MessageStore;
  model: ModelProvider;
  logger: Logger;
  /** How many earlier messages of the channel the model sees. */
  historyLimit: number;
  createExtractor: () => ReplyExtractor;
  /**
   * The reply's own signal (its controller in the reply registry, which a stop of the server aborts): the reply
   * then ends with an error part.
   */
  signal: AbortSignal;
  /** What an agent can do: its actions, providers and evaluators (none: it only talks). */
  abilitiesOf?: (agentId: string) => AgentAbilities | undefined;
  /** The server's loop bounds; each agent's character may override them. */
  loopLimits: AgentLoopLimits;
  /** Posts content into the channel as the agent, in answer to `inReplyTo` (an action's `callback`). */
  postAsAgent?: (
    agent: AgentProfile,
    content: Content,
    inReplyTo: StoredMessage,
  ) => Promise<Memory[]>;
  /** Values no tool result may show besides each agent's own secrets (the server's keys). */
  serverSecrets?: readonly string[];
}

/**
 * Has `agent` answer `userMessage` into `stream`, as a bounded loop: providers compose context, the model answers
 * (text deltas as they come) and may call the agent's actions (native tool calls, or named in the XML protocol);
 * the calls run (`tool-call`, `tool-result` parts) and their results go back to the model, until it answers
 * without calls or the step bound is reached, when it is asked to answer without tools. Then the reply is stored
 * with its calls, and evaluators run. Never rejects: a failure is an `error` part.
 */
export async function produceModelReply(
  context: ModelReplyContext,
  stream: ReplyStream,
  agent: AgentProfile,
  userMessage: StoredMessage,
): Promise<void> {
  const { store, model, logger, historyLimit, signal } = context;
  const { replyId, channelId } = stream;
  const agentName = agent.character.name;
  stream.write({
    type: 'reply-start',
    replyId,
    channelId,
    agentId: agent.agentId,
    agentName,
    inReplyTo: userMessage.id,
    source: userMessage.source_type,
  });
  try {
    const recent = await store.recent(channelId, historyLimit);
    // The message being answered goes last, even when later messages arrived meanwhile.
    const history = recent.filter((message) => message.id !== userMessage.id);
    history.push(userMessage);
    // An agent whose plugins bring nothing to do only talks: no state, no prompt sections, no validation.
    const found = context.abilitiesOf?.(agent.agentId);
    const abilities = found && !found.empty ? found : undefined;
    const limits = loopLimitsFor(agent.character, context.loopLimits);
    const message = toMemory(userMessage, agent.agentId);
    // elizaOS templates' {{recentMessages}}: the history the model sees, one "Name: text" line each. Built only
    // for an agent that can act: a plain reply has no template to fill.
    const values = () => ({
      agentName,
      senderName: userMessage.author_name,
      recentMessages: history.map((entry) => `${entry.author_name}: ${entry.content}`).join('\n'),
    });
    // A new state for each call: a handler may change the one it is given.
    const compose = async (): Promise<State> =>
      !abilities
        ? { values: {}, data: {}, text: '' }
        : abilities.providers.length > 0
          ? composeState(abilities, message, {
              timeoutMs: limits.providerTimeoutMs,
              logger,
              values: values(),
            })
          : { values: values(), data: {}, text: '' };
    const actions =
      abilities && limits.maxSteps > 0
        ? await offeredActions(abilities, message, limits.providerTimeoutMs, logger)
        : [];
    let index = 0;
    const chunks = new ChunkCoalescer((delta) => {
      stream.write({ type: 'text-delta', replyId, delta, index });
      index += 1;
    });
    // The reply's text exactly as streamed (separators included), so that a resume from storage lines up.
    let text = '';
    const steps: ModelMessage[] = [];
    const records: ToolCallRecord[] = [];
    const ran: string[] = [];
    let last: ModelStepResult;
    let lastStepNext = false;
    for (let step = 0; ; step += 1) {
      const lastStep = (step >= limits.maxSteps || lastStepNext) && actions.length > 0;
      const offered = lastStep ? [] : actions;
      const state = await compose();
      signal.throwIfAborted();
      const request = {
        messages: buildPrompt(agent.character, agent.agentId, history, {
          context: state.text,
          callsTools: model.callsTools,
          actions: offered,
          steps,
          lastStep,
        }),
        signal,
        agentName,
        ...(model.callsTools && offered.length > 0 ? { tools: offered.map(toModelTool) } : {}),
      };
      // A later step's text starts a new paragraph of the reply.
      let separated = text === '';
      last = await runModelStep(model, request, context.createExtractor(), (delta) => {
        const piece = separated ? delta : `\n\n${delta}`;
        separated = true;
        text += piece;
        chunks.push(piece);
      });
      // At most MAX_TOOL_CALLS_PER_REPLY calls in all: what a reply records and clients accept.
      const room = MAX_TOOL_CALLS_PER_REPLY - records.length;
      const calls = offered.length > 0 ? callsOf(last, offered, model.callsTools, step) : [];
      if (calls.length === 0) break;
      calls.splice(room);
      // The text so far goes out before the calls.
      chunks.flush();
      const done = await runToolStep(
        calls,
        step,
        stream,
        {
          findAction: (name) => {
            const found = abilities!.findAction(name);
            return found && offered.includes(found) ? found : undefined;
          },
          message,
          state,
          signal,
          timeoutMs: limits.toolTimeoutMs,
          resultLimit: limits.toolResultLimit,
          post: (content) =>
            context.postAsAgent
              ? context.postAsAgent(agent, content, userMessage)
              : Promise.resolve([]),
          logger,
          secrets: [...secretsOf(agent.character), ...(context.serverSecrets ?? [])],
        },
        { maxParallel: limits.maxParallelTools, maxCalls: limits.maxToolCallsPerStep },
      );
      records.push(...done.records);
      ran.push(...done.ran);
      steps.push(
        {
          role: 'assistant',
          content: last.text,
          // Arguments as parsed: what did not parse goes back as `{}` (a server may refuse invalid JSON).
          toolCalls: done.records.map(({ toolCallId, toolName, input }) => ({
            toolCallId,
            toolName,
            input: typeof input === 'string' ? '{}' : JSON.stringify(input ?? {}),
          })),
        },
        ...done.messages,
      );
      signal.throwIfAborted();
      if (records.length >= MAX_TOOL_CALLS_PER_REPLY) lastStepNext = true;
    }
    chunks.flush();

    // Cancelled while the last piece came: nothing of a cancelled reply is stored.
    signal.throwIfAborted();
    const { thought } = last;
    const replied = text.trim() !== '' && (records.length > 0 || last.actions.includes('REPLY'));
    const actionsTaken = [...ran, ...(replied ? ['REPLY'] : [])];
    if (!replied && records.length === 0) {
      const reason =
        last.actions.includes('REPLY') || last.actions.length === 0 ? 'empty' : 'ignored';
      logger.info(
        {
          agent: agentName,
          agentId: agent.agentId,
          channelId,
          replyId,
          reason,
          actions: last.actions,
        },
        'the agent chose not to reply',
      );
      stream.write({
        type: 'reply-end',
        replyId,
        message: null,
        text,
        actions: last.actions,
        thought,
        toolCalls: [],
        reason,
      });
      return;
    }
    const stored = await store.insert({
      id: replyId,
      channelId,
      serverId: userMessage.server_id,
      authorId: agent.agentId,
      authorName: agentName,
      content: text,
      sourceType: 'agent_response',
      rawMessage: {
        text,
        ...(thought === undefined ? {} : { thought }),
        actions: actionsTaken,
        ...(records.length > 0 ? { toolCalls: fitForStorage(records, text.length) } : {}),
      },
      metadata: { agent_id: agent.agentId, agentName },
      inReplyTo: userMessage.id,
      createdAt: new Date(),
    });
    stream.write({
      type: 'reply-end',
      replyId,
      message: stored,
      text,
      actions: actionsTaken,
      thought,
      toolCalls: records,
    });
    if (abilities && abilities.evaluators.length > 0) {
      void runEvaluators(abilities, message, toMemory(stored, agent.agentId), {
        timeoutMs: limits.evaluatorTimeoutMs,
        logger,
      });
    }
  } catch (error) {
    // A cancel already ended the stream with its own part; the abort it caused is no failure to log.
    if (signal.aborted && stream.final) return;
    stream.write(
      toReplyError(error, replyId, logger, {
        agentId: agent.agentId,
        channelId,
        messageId: userMessage.id,
      }),
    );
  }
}
