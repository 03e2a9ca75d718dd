import type { AgentAction } from '../../agents/agent-abilities';
import type { ModelTool } from '../../models/model-provider';
import type { ToolCallRequest } from '../tools/run-tool-call';
import type { ModelStepResult } from './model-step';
import { parseXmlParams } from './xml-params';

/** Actions a model names in `<actions>` that are not calls. */
const PROTOCOL_ACTIONS = new Set(['REPLY', 'NONE', 'IGNORE', 'CONTINUE']);

/** An action as a model's native tool. */
export function toModelTool({ toolName, action, input }: AgentAction): ModelTool {
  return { name: toolName, description: action.description ?? '', inputSchema: input.jsonSchema };
}

/**
 * The calls a step made: its native tool calls, or, for a model without them, the offered actions it named in
 * `<actions>` with their `<params>`. A name the agent does not offer is still a call (its result says so).
 */
export function callsOf(
  step: ModelStepResult,
  offered: readonly AgentAction[],
  callsTools: boolean,
  index: number,
): ToolCallRequest[] {
  if (callsTools || step.toolCalls.length > 0) return step.toolCalls;
  const named = step.actions.filter((name) => !PROTOCOL_ACTIONS.has(name.toUpperCase()));
  if (named.length === 0) return [];
  const params = parseXmlParams(step.raw);
  return named.map((name, position) => {
    const action = offered.find(
      (entry) =>
        entry.toolName.toUpperCase() === name.toUpperCase() ||
        entry.action.name.toUpperCase() === name.toUpperCase(),
    );
    return {
      toolCallId: `call_${index}_${position}`,
      toolName: action?.toolName ?? name,
      input:
        params.get(name.toUpperCase()) ?? params.get(action?.action.name.toUpperCase() ?? '') ?? {},
    };
  });
}
