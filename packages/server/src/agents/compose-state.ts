import type { Memory, PluginLogger, ProviderResult, State } from '@parley/plugin-sdk';
import { untilAborted } from '../reply/tools/until-aborted';
import type { AgentAbilities } from './agent-abilities';

/** Which providers {@link composeState} runs, and how long it waits for them in all. */
export interface ComposeStateOptions {
  /** Names of providers to run besides the default ones (dynamic and private ones run only when named). */
  include?: readonly string[] | null;
  /** Run only the providers named in `include`. */
  onlyInclude?: boolean;
  /** The total deadline: a provider not done by then is left out. */
  timeoutMs: number;
  logger: Pick<PluginLogger, 'warn'>;
  /** Values every state carries (the agent's name…), under the providers' own. */
  values?: Record<string, unknown>;
}

/** Most characters one provider's text adds to the prompt. */
const MAX_PROVIDER_TEXT = 16 * 1024;

/**
 * Runs an agent's providers for `message` in parallel, as elizaOS's `composeState` does: their values merged,
 * their results under `data.providers[name]`, their texts joined (in `position` order) as `text` and
 * `values.providers`. A provider that throws, returns something that is not an object, or is not done by the
 * deadline is logged once and left out; the state is composed from the others.
 */
export async function composeState(
  abilities: AgentAbilities,
  message: Memory,
  options: ComposeStateOptions,
): Promise<State> {
  const named = new Set((options.include ?? []).map((name) => name.toUpperCase()));
  const chosen = abilities.providers.filter(({ item }) => {
    const asked = named.has(item.name.toUpperCase());
    if (options.onlyInclude) return asked;
    return asked || (!item.dynamic && !item.private);
  });
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const empty: State = { values: {}, data: {}, text: '' };
  const results = await Promise.all(
    chosen.map(async ({ item, runtime, pluginName }) => {
      try {
        const result = await untilAborted(
          Promise.resolve().then(() => item.get(runtime, message, empty)),
          deadline,
        );
        if (typeof result !== 'object' || result === null) return undefined;
        return { name: item.name, result: result };
      } catch (error) {
        const late = deadline.aborted;
        options.logger.warn(
          { err: late ? undefined : error, provider: item.name, plugin: pluginName },
          late
            ? 'a provider missed the deadline and was left out'
            : 'a provider failed and was left out',
        );
        return undefined;
      }
    }),
  );
  const values: Record<string, unknown> = { ...options.values };
  const providers: Record<string, ProviderResult> = {};
  const texts: string[] = [];
  for (const entry of results) {
    if (!entry) continue;
    const { name, result } = entry;
    providers[name] = result;
    if (isRecord(result.values)) Object.assign(values, result.values);
    if (typeof result.text === 'string' && result.text.trim() !== '') {
      texts.push(result.text.slice(0, MAX_PROVIDER_TEXT));
    }
  }
  const text = texts.join('\n\n');
  return { values: { ...values, providers: text }, data: { providers }, text };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
