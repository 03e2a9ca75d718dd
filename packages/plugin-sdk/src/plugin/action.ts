import type {
  Action,
  ActionParameters,
  Evaluator,
  ParameterSchema,
  Provider,
} from './agent-contract';

/**
 * What an agent acts with, in the shapes of `@elizaos/core` 1.x: actions the model may call, providers that add
 * context before each model call, evaluators that run after a reply. An elizaOS plugin's `actions`, `providers`
 * and `evaluators` load as they are; {@link defineAction}, {@link defineProvider} and {@link defineEvaluator}
 * type new ones.
 */

export type {
  Content,
  Memory,
  State,
  ActionResult,
  HandlerCallback,
  ActionExample,
  ActionParameter,
  ParameterSchema,
  ActionParameters,
  HandlerOptions,
  ActionHandlerReturn,
  Action,
  NeedsApproval,
  ProviderResult,
  Provider,
  Evaluator,
} from './agent-contract';

/**
 * Declares an action. With a zod schema as `parameters`, `options.parameters` is typed by it.
 *
 * @example
 * defineAction({
 *   name: 'CALCULATE',
 *   description: 'Evaluates an arithmetic expression',
 *   parameters: { type: 'object', properties: { expression: { type: 'string' } }, required: ['expression'] },
 *   handler: async (_runtime, _message, _state, options) => ({ success: true, text: String(options?.parameters?.expression) }),
 * });
 */
export function defineAction<Params = Record<string, unknown>>(
  action: Omit<Action<Params>, 'parameters'> & {
    parameters?: ParameterSchema<Params> | ActionParameters;
  },
): Action {
  return action as unknown as Action;
}

/** Declares a provider. */
export function defineProvider(provider: Provider): Provider {
  return provider;
}

/** Declares an evaluator. */
export function defineEvaluator(evaluator: Evaluator): Evaluator {
  return evaluator;
}
