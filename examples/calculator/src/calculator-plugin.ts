import { defineAction, definePlugin, defineProvider } from '@parley/plugin-sdk';
import { evaluate, MAX_EXPRESSION } from './evaluate';

/** The last result in each channel, for the provider (in memory: an example, not a store). */
const lastResults = new Map<string, string>();
/** Channels remembered at most. */
const MAX_CHANNELS = 1000;

function remember(channelId: string, line: string) {
  lastResults.delete(channelId);
  lastResults.set(channelId, line);
  if (lastResults.size > MAX_CHANNELS) lastResults.delete(lastResults.keys().next().value!);
}

/**
 * `CALCULATE`: evaluates an arithmetic expression. Its `parameters` make it a tool for models that call tools;
 * the model's `expression` arrives validated as `options.parameters.expression`.
 */
export const calculateAction = defineAction<{ expression: string }>({
  name: 'CALCULATE',
  similes: ['COMPUTE', 'MATH'],
  description:
    'Evaluates an arithmetic expression (numbers, + - * / % ^ and parentheses) and returns the result.',
  parameters: {
    type: 'object',
    properties: {
      expression: {
        type: 'string',
        minLength: 1,
        maxLength: MAX_EXPRESSION,
        description: 'The expression, e.g. "(3 + 4) * 2"',
      },
    },
    required: ['expression'],
    additionalProperties: false,
  },
  handler: (_runtime, message, _state, options) => {
    const expression = options?.parameters?.expression ?? '';
    try {
      const value = evaluate(expression);
      const text = `${expression} = ${value}`;
      remember(message.roomId, text);
      return { success: true, text, values: { result: value } };
    } catch (error) {
      return {
        success: false,
        error: `Cannot calculate "${expression}": ${(error as Error).message}`,
      };
    }
  },
});

/**
 * `FORGET_CALCULATIONS`: forgets the channel's last result. It changes what the agent knows, so a person approves
 * each call first (`needsApproval`): the reply pauses until someone decides.
 */
export const forgetCalculationsAction = defineAction({
  name: 'FORGET_CALCULATIONS',
  description: "Forgets this conversation's last calculation.",
  needsApproval: true,
  handler: (_runtime, message) => {
    const had = lastResults.delete(message.roomId);
    return {
      success: true,
      text: had ? 'The last calculation is forgotten.' : 'There was nothing to forget.',
    };
  },
});

/** `LAST_CALCULATION`: tells the model the channel's last result, so a follow-up can build on it. */
export const lastCalculationProvider = defineProvider({
  name: 'LAST_CALCULATION',
  description: "The channel's last calculation",
  get: (_runtime, message) => {
    const line = lastResults.get(message.roomId);
    return line
      ? {
          text: `The last calculation in this conversation: ${line}`,
          values: { lastCalculation: line },
        }
      : {};
  },
});

/** The calculator plugin: two actions (one that needs a person's approval) and a provider, no routes. */
export const calculatorPlugin = definePlugin({
  name: 'calculator',
  description: 'A CALCULATE action agents call as a tool, and the last result as context',
  actions: [calculateAction, forgetCalculationsAction],
  providers: [lastCalculationProvider],
});
