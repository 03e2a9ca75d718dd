import type { StoredMessage } from '@parley/core';
import type { AgentProfile } from '../../agents/agent-profile';
import { toMemory } from '../../agents/to-memory';
import { pauseReply } from '../approvals/pause-reply';
import type { ReplyStream } from '../parts/reply-stream';
import { fitForStorage } from '../tools/storable-records';
import { prepareLoop } from './loop-setup';
import type { LoopOutcome, LoopRun, ModelReplyContext } from './loop-types';
import type { ModelStepResult } from './model-step';
import { toReplyError } from './reply-failure';
import { freshProgress, runAgentLoop } from './run-agent-loop';
import { runEvaluators } from './run-evaluators';
import { namedCalls } from './step-calls';

/**
 * Has `agent` answer `userMessage` into `stream`, as a bounded loop ({@link runAgentLoop}): the model answers and
 * may call the agent's actions, whose results go back to it, until it answers without calls. Then the reply is
 * stored with its calls, and evaluators run; or, when a call needs a person's approval, the reply pauses (it is
 * stored and its stream ends with `reply-pause`; {@link continueModelReply} takes it on). Never rejects: a
 * failure is an `error` part.
 */
export async function produceModelReply(
  context: ModelReplyContext,
  stream: ReplyStream,
  agent: AgentProfile,
  userMessage: StoredMessage,
): Promise<void> {
  const { replyId, channelId } = stream;
  stream.write({
    type: 'reply-start',
    replyId,
    channelId,
    agentId: agent.agentId,
    agentName: agent.character.name,
    inReplyTo: userMessage.id,
    source: userMessage.source_type,
  });
  const work = async () => {
    const setup = await prepareLoop(context, agent, userMessage);
    const progress = freshProgress();
    const outcome = await runAgentLoop(context, setup, agent, stream, progress);
    await conclude({ context, setup, agent, stream, userMessage, progress }, outcome);
  };
  await guarded(context, stream, agent, userMessage, () =>
    context.telemetry ? context.telemetry.invokeAgent(agent, channelId, work, { replyId }) : work(),
  );
}

/**
 * Runs `work` for a reply, turning what it throws into the reply's `error` part (a cancel already ended the
 * stream with its own part: the abort it caused is no failure to log).
 */
export async function guarded(
  context: ModelReplyContext,
  stream: ReplyStream,
  agent: AgentProfile,
  userMessage: StoredMessage,
  work: () => Promise<void>,
): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (context.signal.aborted && stream.final) return;
    stream.write(
      toReplyError(error, stream.replyId, context.logger, {
        agentId: agent.agentId,
        channelId: stream.channelId,
        messageId: userMessage.id,
      }),
    );
  }
}

/**
 * Ends a loop's run: the reply is stored (or deliberately empty), or it pauses for its approval requests. When it
 * cannot pause (no store for pauses), the waiting calls were refused and the loop goes on, to its own end.
 */
export async function conclude(run: LoopRun, outcome: LoopOutcome): Promise<void> {
  if (outcome.kind === 'paused') {
    if ((await pauseReply(run, outcome.paused)) === 'refused') {
      const { context, setup, agent, stream, progress } = run;
      await conclude(run, await runAgentLoop(context, setup, agent, stream, progress));
    }
    return;
  }
  await finishReply(run, outcome.last);
}

/**
 * A last answer that names actions the loop did not run (none of that name is offered, or the reply reached its
 * step bound and the model was asked to answer without them) is not dropped as "ignored": the reply says which
 * were not run and why, after the model's text, and is stored as a reply. IGNORE and NONE still mean silence.
 */
function explainUnrunActions({ setup, stream, progress }: LoopRun, last: ModelStepResult): void {
  const named = namedCalls(last.actions);
  const silent = last.actions.some((name) => ['IGNORE', 'NONE'].includes(name.toUpperCase()));
  if (named.length === 0 || silent) return;
  const offered = (name: string) =>
    setup.actions.some(
      ({ toolName, action }) =>
        toolName.toUpperCase() === name.toUpperCase() ||
        action.name.toUpperCase() === name.toUpperCase(),
    );
  const reasons = named.map((name) =>
    offered(name)
      ? `${name} was not run: this reply reached its bound of ${setup.limits.maxSteps} steps`
      : `${name} was not run: this agent has no action of that name`,
  );
  const note = `${progress.text.trim() === '' ? '' : '\n\n'}(${reasons.join('; ')})`;
  stream.write({ type: 'text-delta', replyId: stream.replyId, delta: note, index: progress.index });
  progress.index += 1;
  progress.text += note;
  last.actions = [...last.actions.filter((name) => !named.includes(name)), 'REPLY'];
}

/** `{ receiptId }` of a stored reply when receipts are signed, else nothing. */
function withReceiptId(context: ModelReplyContext, messageId: string): { receiptId?: string } {
  const receiptId = context.receiptIdOf?.(messageId);
  return receiptId === undefined ? {} : { receiptId };
}

/** Stores the reply the model ended with, and runs evaluators; or ends it empty when the model chose so. */
async function finishReply(run: LoopRun, last: ModelStepResult): Promise<void> {
  const { context, setup, agent, stream, userMessage, progress } = run;
  const { store, logger, signal } = context;
  const { replyId, channelId } = stream;
  const { abilities, limits, message } = setup;
  const { records, ran } = progress;
  const agentName = agent.character.name;
  // Cancelled while the last piece came: nothing of a cancelled reply is stored.
  signal.throwIfAborted();
  const { thought } = last;
  explainUnrunActions(run, last);
  const { text } = progress;
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
  // One step, never interleaved with a cancel: either it came first (nothing stored) or it is refused.
  context.beginStore?.(replyId);
  signal.throwIfAborted();
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
      ...(setup.sources.length > 0 ? { sources: setup.sources } : {}),
    },
    // A regenerated answer says so: clients show it as an alternative to the earlier answer to the message.
    metadata: {
      agent_id: agent.agentId,
      agentName,
      ...(stream.regenerated ? { regenerated: true } : {}),
      // What the answer drew on, by title, for clients to show under it (the broadcast carries metadata).
      ...(setup.sources.length > 0
        ? { sources: setup.sources.map(({ id, title }) => ({ id, title })) }
        : {}),
    },
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
    ...withReceiptId(context, stored.id),
  });
  context.conversation?.refreshLater(agent, channelId, context.historyLimit, setup.systemPrompt);
  for (const hook of context.afterReply ?? []) hook(agent, userMessage, stored);
  if (abilities && abilities.evaluators.length > 0) {
    void runEvaluators(abilities, message, toMemory(stored, agent.agentId), {
      timeoutMs: limits.evaluatorTimeoutMs,
      logger,
    });
  }
}
