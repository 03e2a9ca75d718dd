import type { StoredMessage } from '@parley/core';
import type { State } from '@parley/plugin-sdk';
import type { AgentAction } from '../../agents/agent-abilities';
import type { AgentProfile } from '../../agents/agent-profile';
import { composeState } from '../../agents/compose-state';
import { withAttachments } from '../../attachments/model-attachments';
import { toMemory } from '../../agents/to-memory';
import { runRecallers } from '../../memory/run-recallers';
import { buildSystemPrompt } from './build-prompt';
import { contextAction, READ_CONTEXT } from './context-action';
import type { ToolRunContext } from '../tools/run-tool-call';
import { loopLimitsFor, secretsOf } from './loop-limits';
import { offeredActions } from './offered-actions';
import type { LoopSetup, ModelReplyContext } from './loop-types';

/** Reads what a reply's loop needs: the channel's recent history, the agent's offered actions and bounds. */
export async function prepareLoop(
  context: ModelReplyContext,
  agent: AgentProfile,
  userMessage: StoredMessage,
): Promise<LoopSetup> {
  const { store, logger, historyLimit, signal } = context;
  const agentName = agent.character.name;
  const recent = await store.recent(userMessage.channel_id, historyLimit);
  // The message being answered goes last, even when later messages arrived meanwhile; answered again
  // (Regenerate), the answers it replaces are not shown to the model.
  let read = recent.filter(
    (message) => message.id !== userMessage.id && message.in_reply_to !== userMessage.id,
  );
  read.push(userMessage);
  // Within the prompt's token budget: the newest turns, and a running summary of those before them.
  const systemPrompt = buildSystemPrompt(agent.character);
  let summary: string | undefined;
  if (context.conversation) {
    const window = await context.conversation.window(
      agent,
      read,
      recent.length < historyLimit,
      systemPrompt,
      signal,
    );
    read = window.history;
    summary = window.summary;
  }
  // Files the messages list: text inline (bounded), others named with type and size.
  const history = context.attachments
    ? await withAttachments(context.attachments, read, agent.agentId)
    : read;
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
  // Recalled once per reply (knowledge, facts about the speaker), into every step's `# Context`.
  const recalled = await runRecallers(
    context.recallers ?? [],
    { agentId: agent.agentId, character: agent.character, message: userMessage, history },
    { timeoutMs: limits.providerTimeoutMs, signal, logger },
  );
  const composeProviders = async (): Promise<State> =>
    !abilities
      ? { values: {}, data: {}, text: '' }
      : abilities.providers.length > 0
        ? composeState(abilities, message, {
            timeoutMs: limits.providerTimeoutMs,
            logger,
            values: values(),
          })
        : { values: values(), data: {}, text: '' };
  const compose = async (): Promise<State> => {
    const state = await composeProviders();
    if (recalled.text === '') return state;
    return { ...state, text: state.text ? `${recalled.text}\n\n${state.text}` : recalled.text };
  };
  const actions =
    abilities && limits.maxSteps > 0
      ? await offeredActions(abilities, message, limits.providerTimeoutMs, logger)
      : [];
  // Dynamic providers (elizaOS runs them when the model names them) are read through one more action.
  const readContext =
    abilities && limits.maxSteps > 0
      ? contextAction(abilities, { timeoutMs: limits.providerTimeoutMs, logger, values })
      : undefined;
  if (readContext) actions.push(readContext);
  const secrets = [...secretsOf(agent.character), ...(context.serverSecrets ?? [])];
  const toolContext = (state: State, offered: readonly AgentAction[]): ToolRunContext => ({
    findAction: (name) => {
      const action =
        readContext && name === READ_CONTEXT ? readContext : abilities?.findAction(name);
      return action && offered.includes(action) ? action : undefined;
    },
    message,
    state,
    signal,
    timeoutMs: limits.toolTimeoutMs,
    resultLimit: limits.toolResultLimit,
    post: (content) =>
      context.postAsAgent ? context.postAsAgent(agent, content, userMessage) : Promise.resolve([]),
    logger,
    secrets,
    telemetry: context.telemetry,
  });
  return {
    history,
    abilities,
    limits,
    message,
    compose,
    actions,
    toolContext,
    summary,
    systemPrompt,
    sources: recalled.sources,
  };
}
