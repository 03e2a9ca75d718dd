import { MAX_TOOL_NAME_LENGTH, toStorableText } from '@parley/core';
import type { AgentAction } from '../../agents/agent-abilities';
import { generateToolCallId } from '../../models/chat-completion-chunks';
import type { ModelTool } from '../../models/model-provider';
import type { ToolCallRequest } from '../tools/run-tool-call';
import type { ModelStepResult } from './model-step';
import { providersAsked, READ_CONTEXT } from './context-action';
import { parseXmlParams } from './xml-params';

/** Actions a model names in `<actions>` that are not calls. */
const PROTOCOL_ACTIONS = new Set(['REPLY', 'NONE', 'IGNORE', 'CONTINUE']);

/** The actions an answer names in `<actions>` that are calls (not REPLY, NONE, IGNORE or CONTINUE). */
export function namedCalls(actions: readonly string[]): string[] {
  return actions.filter((name) => !PROTOCOL_ACTIONS.has(name.toUpperCase()));
}

/**
 * Whether an answer is an elizaOS response document as a whole (`<response>…`, maybe in a code fence): what a
 * model trained on elizaOS's prompts answers even when tools are offered natively. Text that merely contains
 * the protocol somewhere (a model repeating what it was told) is not one.
 */
function isResponseDocument(raw: string): boolean {
  return /^\s*(?:```[a-z]*\s*)?<response>/i.test(raw);
}

/** An action as a model's native tool. */
export function toModelTool({ toolName, action, input }: AgentAction): ModelTool {
  return { name: toolName, description: action.description ?? '', inputSchema: input.jsonSchema };
}

/**
 * The calls a step made: its native tool calls, or the offered actions it named in `<actions>` with their
 * `<params>`: always for a model without native tools, and for one with them when its whole answer is an
 * elizaOS `<response>` document (such a model never calls tools natively; dropping what it named would run
 * nothing and say nothing). A name the agent does not offer is still a call (its result says so). Only the
 * model's own answer is read: a user's message that fakes the protocol is quoted inside it, never its start.
 */
export function callsOf(
  step: ModelStepResult,
  offered: readonly AgentAction[],
  callsTools: boolean,
  index: number,
  earlier: readonly { toolCallId: string; toolName?: string }[] = [],
): ToolCallRequest[] {
  if (step.toolCalls.length > 0) return normaliseCalls(step.toolCalls, earlier);
  if (callsTools && !isResponseDocument(step.raw)) return [];
  // A response document's `<providers>` asks for context once per reply: a model trained on elizaOS's template
  // may list them again in every answer.
  const readContext = offered.find((entry) => entry.toolName === READ_CONTEXT);
  const asked =
    readContext && !earlier.some((call) => call.toolName === READ_CONTEXT)
      ? providersAsked(step.raw, readContext)
      : [];
  const providerCalls: ToolCallRequest[] =
    asked.length > 0
      ? [
          {
            toolCallId: `call_${index}_providers`,
            toolName: READ_CONTEXT,
            input: { providers: asked },
          },
        ]
      : [];
  const named = namedCalls(step.actions).filter(
    (name) => providerCalls.length === 0 || name.toUpperCase() !== READ_CONTEXT,
  );
  if (named.length === 0 && providerCalls.length === 0) return [];
  const params = parseXmlParams(step.raw);
  return normaliseCalls(
    [
      ...providerCalls,
      ...named.map((name, position) => {
        const action = offered.find(
          (entry) =>
            entry.toolName.toUpperCase() === name.toUpperCase() ||
            entry.action.name.toUpperCase() === name.toUpperCase(),
        );
        return {
          toolCallId: `call_${index}_${position}`,
          toolName: action?.toolName ?? name,
          input:
            params.get(name.toUpperCase()) ??
            params.get(action?.action.name.toUpperCase() ?? '') ??
            {},
        };
      }),
    ],
    earlier,
  );
}

/** Longest tool call id kept as the model wrote it. */
export const MAX_TOOL_CALL_ID_LENGTH = 64;

/** What a kept id may hold: the characters of every provider's ids (`call_…`, `toolu_…`, `functions.x:0`). */
const PLAIN_ID = /^[\w.:-]+$/;

// Control characters (C0, DEL, C1): in a name they could only hide what the name says.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * A step's calls as the rest of the loop may trust them: an id that is empty, longer than
 * {@link MAX_TOOL_CALL_ID_LENGTH}, holds anything but letters, digits and `_.:-`, or repeats an id of the step or
 * of the reply's `earlier` calls is replaced by a server-made one (`call_…`); that id is the call's everywhere
 * after (its parts, records, approval, and the model's next turn, whose call and result then pair under it). A
 * tool name's control characters become U+FFFD (so `ECHO\0` is an unknown tool, not ECHO) and it is cut to the
 * names' bound.
 */
export function normaliseCalls(
  calls: readonly ToolCallRequest[],
  earlier: readonly { toolCallId: string }[] = [],
): ToolCallRequest[] {
  const used = new Set(earlier.map((call) => call.toolCallId));
  return calls.map((call) => {
    let id = typeof call.toolCallId === 'string' ? call.toolCallId : '';
    if (id.length > MAX_TOOL_CALL_ID_LENGTH || !PLAIN_ID.test(id) || used.has(id)) {
      do id = generateToolCallId();
      while (used.has(id));
    }
    used.add(id);
    const name = typeof call.toolName === 'string' ? call.toolName : '';
    const toolName = toStorableText(
      name.replace(CONTROL, '\uFFFD').slice(0, MAX_TOOL_NAME_LENGTH),
    ).slice(0, MAX_TOOL_NAME_LENGTH);
    return id === call.toolCallId && toolName === call.toolName
      ? call
      : { ...call, toolCallId: id, toolName };
  });
}
