import type { AgentRuntime } from '@parley/plugin-sdk';
import { UNOFFERED_RUNTIME_MEMBERS, UnofferedRuntimeMemberError } from './unoffered-runtime-member';

/**
 * The runtime one plugin sees: the agent's runtime behind a Proxy. Members Parley offers pass through (methods
 * bound to the runtime); a member of elizaOS's runtime that Parley lacks throws {@link UnofferedRuntimeMemberError}
 * naming the member and the plugin, when called or, for data members such as `databaseAdapter`, when read.
 * Anything else reads as undefined, as on a plain object.
 */
export function createPluginRuntime(agent: AgentRuntime, pluginName: string): AgentRuntime {
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(agent, {
    get(target, property) {
      if (property in target) {
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== 'function') return value;
        if (!bound.has(property))
          bound.set(property, (value as (...args: unknown[]) => unknown).bind(target));
        return bound.get(property);
      }
      if (typeof property === 'string' && UNOFFERED_RUNTIME_MEMBERS.has(property)) {
        const error = new UnofferedRuntimeMemberError(pluginName, property);
        if (property === 'adapter' || property === 'databaseAdapter') throw error;
        return () => {
          throw error;
        };
      }
      return undefined;
    },
  });
}
