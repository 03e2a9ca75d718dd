import type { Action } from '@parley/plugin-sdk';
import type { Logger } from 'pino';
import type { AgentAbilities, AgentAction } from '../../agents/agent-abilities';
import { composeState } from '../../agents/compose-state';
import { toToolInput, type ToolInput } from '../tools/tool-input';

/** The built-in action through which a model reads the providers it may ask for (elizaOS's dynamic providers). */
export const READ_CONTEXT = 'READ_CONTEXT';

/** What a call of {@link READ_CONTEXT} answers when the providers asked for gave nothing. */
const NOTHING = 'The providers asked for had nothing for this message.';

/**
 * The `READ_CONTEXT` action of an agent whose plugins have dynamic providers (elizaOS runs those only when the
 * model names them, e.g. `@elizaos/plugin-knowledge`'s KNOWLEDGE), or undefined when it has none. It is offered
 * like any action: a native tool for models that call tools, an action with `<params>` for the XML protocol,
 * where a response document's own `<providers>` list asks for it too (see `providersCall`). Its result, the
 * providers' texts, goes back to the model, which answers with it in the next step. Private providers are never
 * offered: only a plugin may ask for those.
 */
export function contextAction(
  abilities: AgentAbilities,
  options: { timeoutMs: number; logger: Logger; values: () => Record<string, unknown> },
): AgentAction | undefined {
  const dynamic = abilities.providers.filter(({ item }) => item.dynamic && !item.private);
  if (dynamic.length === 0) return undefined;
  const names = dynamic.map(({ item }) => item.name);
  const listed = dynamic
    .map(({ item }) => (item.description ? `${item.name} (${item.description})` : item.name))
    .join('; ');
  const { parameters, input } = inputFor(abilities, names);
  const action: Action = {
    name: READ_CONTEXT,
    description: `Reads context this agent can look up before answering: ${listed}. Call it first when the answer needs one of them.`,
    parameters,
    handler: async (_runtime, message, _state, handlerOptions) => {
      const asked = (handlerOptions?.parameters as { providers: string[] }).providers;
      const state = await composeState(abilities, message, {
        include: asked,
        onlyInclude: true,
        timeoutMs: options.timeoutMs,
        logger: options.logger,
        values: options.values(),
      });
      return { success: true, text: state.text === '' ? NOTHING : state.text };
    },
  };
  return {
    action,
    toolName: READ_CONTEXT,
    runtime: dynamic[0]!.runtime,
    pluginName: 'parley',
    input,
  };
}

/** Each agent's compiled READ_CONTEXT input, for the provider names it was compiled for. */
const compiled = new WeakMap<
  AgentAbilities,
  { key: string; parameters: Record<string, unknown>; input: ToolInput }
>();

/**
 * The READ_CONTEXT parameters for `names`, and their compiled check: compiled once per agent and set of names
 * (a schema compile costs far more than a reply's other setup), again only when its providers change.
 */
function inputFor(abilities: AgentAbilities, names: string[]) {
  const key = names.join('\n');
  const cached = compiled.get(abilities);
  if (cached?.key === key) return cached;
  const parameters = {
    type: 'object',
    properties: {
      providers: {
        type: 'array',
        description: 'The names of the providers to read.',
        items: { type: 'string', enum: names },
        minItems: 1,
        maxItems: names.length,
        uniqueItems: true,
      },
    },
    required: ['providers'],
    additionalProperties: false,
  };
  const entry = { key, parameters, input: toToolInput(parameters) };
  compiled.set(abilities, entry);
  return entry;
}

/**
 * The providers an elizaOS response document asks for in its own `<providers>` element (comma-separated names,
 * as elizaOS's message template has the model write them), among those `offered` reads; empty when none.
 */
export function providersAsked(raw: string, offered: AgentAction): string[] {
  const listed = /<providers>([^<]*)<\/providers>/i.exec(raw)?.[1];
  if (!listed) return [];
  const known = new Map(
    (
      (offered.input.jsonSchema as unknown as ProvidersSchema).properties.providers.items.enum ?? []
    ).map((name) => [name.toUpperCase(), name]),
  );
  const asked = listed
    .split(',')
    .map((name) => known.get(name.trim().toUpperCase()))
    .filter((name): name is string => name !== undefined);
  return [...new Set(asked)];
}

interface ProvidersSchema {
  properties: { providers: { items: { enum?: string[] } } };
}
