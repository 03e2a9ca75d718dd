import type { Action, Evaluator, Provider } from './action';
import type { HttpRoute, Route } from './route';
import type { AgentRuntime, PluginEventHandler, PluginServiceClass } from './runtime';

/** One plugin test: a name and a function that throws to fail. */
export interface PluginTest {
  name: string;
  fn: (runtime: AgentRuntime) => Promise<void> | void;
}

/** A named group of plugin tests. */
export interface PluginTestSuite {
  name: string;
  tests: PluginTest[];
}

/**
 * A Parley plugin, version 1 of the contract. A later contract gets a new `specificationVersion` and can be
 * loaded beside this one.
 */
export interface Plugin {
  /** Contract version; `'v1'` when omitted. */
  specificationVersion?: 'v1';
  name: string;
  description?: string;
  /** Routes, all registered when the plugin loads. */
  routes?: Route[];
  /** Start-up hook, run before any route serves. */
  init?: (config: Record<string, string>, runtime: AgentRuntime) => Promise<void> | void;
  /** Test suites run by `parley test` and the SDK's harness. */
  tests?: PluginTestSuite[];
  /** Services started for each agent after `init`, found with `runtime.getService(serviceType)`. */
  services?: PluginServiceClass[];
  /** Event handlers registered for each agent after `init` (`runtime.emitEvent`). */
  events?: Record<string, PluginEventHandler[]>;
  /** What the agent can do: offered to its model as tools (or in the `<actions>` protocol), run when called. */
  actions?: Action[];
  /** Context added to the agent's prompt before each model call. */
  providers?: Provider[];
  /** Work run after each reply. */
  evaluators?: Evaluator[];
}

/**
 * Declares a plugin with full typing of its routes and hooks.
 *
 * @example
 * export default definePlugin({
 *   name: 'hello',
 *   routes: [defineRoute({ type: 'GET', path: '/hello', handler: (_req, res) => res.json({ hi: true }) })],
 * });
 */
export function definePlugin(plugin: Plugin): Plugin {
  return { specificationVersion: 'v1', ...plugin };
}

/**
 * Declares a route, typing its handler's request body and giving the handler the Express-style request and
 * response it receives at run time (`HttpRouteRequest`, `HttpRouteResponse`).
 *
 * @example
 * defineRoute<{ event: string }>({ type: 'POST', path: '/webhook', handler: (req, res) => res.json(req.body) });
 */
export function defineRoute<Body = unknown>(route: HttpRoute<Body>): Route {
  return route as unknown as Route;
}
