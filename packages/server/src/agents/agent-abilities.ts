import type { Action, AgentRuntime, Evaluator, Provider } from '@parley/plugin-sdk';
import { ConfigError } from '../errors/config-error';
import { UnsafePatternError } from '../reply/tools/linear-ajv';
import { toToolInput, type ToolInput } from '../reply/tools/tool-input';

/** An action of one agent, with the runtime of the plugin that brought it and its checked input. */
export interface AgentAction {
  action: Action;
  /** The name offered to models (an OpenAI function name: letters, digits, `_` and `-`, at most 64). */
  toolName: string;
  /** The runtime its handler receives: the view of the plugin that declared it. */
  runtime: AgentRuntime;
  pluginName: string;
  input: ToolInput;
}

/** A provider or evaluator of one agent, with the runtime of its plugin. */
export interface Bound<Item> {
  item: Item;
  runtime: AgentRuntime;
  pluginName: string;
}

/** A model-safe tool name for an action name. */
export function toToolName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) || 'action';
}

/**
 * What one agent can do: the actions, providers and evaluators of the plugins it loads, each with the runtime of
 * its plugin. Filled when plugins load (and by `runtime.registerAction`…); read by the agent loop.
 */
export class AgentAbilities {
  readonly #actions = new Map<string, AgentAction>();
  /** Names and similes, upper-cased, to the action (the XML protocol names actions loosely). */
  readonly #byName = new Map<string, AgentAction>();
  readonly providers: Bound<Provider>[] = [];
  readonly evaluators: Bound<Evaluator>[] = [];

  /**
   * Adds an action. Refused (ConfigError naming both plugins) when the agent has an action of that name; a
   * `parameters` schema that does not compile is refused naming the action.
   */
  addAction(action: Action, runtime: AgentRuntime, pluginName: string): void {
    if (typeof action?.name !== 'string' || typeof action.handler !== 'function') {
      throw new ConfigError(`plugin "${pluginName}": an action needs a name and a handler`);
    }
    const toolName = toToolName(action.name);
    const existing = this.#actions.get(toolName);
    if (existing) {
      throw new ConfigError(
        `plugin "${pluginName}": action ${action.name} is already declared by plugin "${existing.pluginName}"`,
      );
    }
    let input: ToolInput;
    try {
      input = toToolInput(action.parameters);
    } catch (error) {
      // A pattern the linear-time engine refuses is named (the plugin's own schema: nothing secret in it).
      const reason = error instanceof UnsafePatternError ? `: ${error.message}` : '';
      throw new ConfigError(
        `plugin "${pluginName}": the parameters of action ${action.name} are not a valid schema${reason}`,
        { cause: error },
      );
    }
    const entry: AgentAction = { action, toolName, runtime, pluginName, input };
    this.#actions.set(toolName, entry);
    for (const name of [action.name, toolName, ...(action.similes ?? [])]) {
      if (typeof name !== 'string') continue;
      const key = name.toUpperCase();
      if (!this.#byName.has(key)) this.#byName.set(key, entry);
    }
  }

  /**
   * Removes the action offered as `toolName` (an MCP tool its server no longer lists); replies already running
   * keep the list they were offered. Whether there was one.
   */
  removeAction(toolName: string): boolean {
    const entry = this.#actions.get(toolName);
    if (!entry) return false;
    this.#actions.delete(toolName);
    for (const [key, value] of this.#byName) if (value === entry) this.#byName.delete(key);
    return true;
  }

  addProvider(provider: Provider, runtime: AgentRuntime, pluginName: string): void {
    if (typeof provider?.name !== 'string' || typeof provider.get !== 'function') {
      throw new ConfigError(`plugin "${pluginName}": a provider needs a name and a get function`);
    }
    this.providers.push({ item: provider, runtime, pluginName });
    this.providers.sort((a, b) => (a.item.position ?? 0) - (b.item.position ?? 0));
  }

  addEvaluator(evaluator: Evaluator, runtime: AgentRuntime, pluginName: string): void {
    if (typeof evaluator?.name !== 'string' || typeof evaluator.handler !== 'function') {
      throw new ConfigError(`plugin "${pluginName}": an evaluator needs a name and a handler`);
    }
    this.evaluators.push({ item: evaluator, runtime, pluginName });
  }

  /** Every action, in the order added. */
  get actions(): AgentAction[] {
    return [...this.#actions.values()];
  }

  /** The action a model called: by tool name exactly, else by name or simile, case-insensitively. */
  findAction(name: string): AgentAction | undefined {
    return this.#actions.get(name) ?? this.#byName.get(name.toUpperCase());
  }

  /** Whether the agent can do anything beyond talking. */
  get empty(): boolean {
    return this.#actions.size === 0 && this.providers.length === 0 && this.evaluators.length === 0;
  }
}
