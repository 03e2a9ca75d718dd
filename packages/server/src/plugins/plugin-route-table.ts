import type { AgentRuntime, Route } from '@parley/plugin-sdk';

/** Where a STATIC route's `filePath` points, resolved once at load time. */
export interface StaticTarget {
  /** The real path (symlinks resolved) of the file or folder. */
  root: string;
  kind: 'file' | 'directory';
}

/** One route of one plugin, served by one agent. */
export interface PluginRouteEntry {
  pluginName: string;
  route: Route;
  agent: AgentRuntime;
  /** The runtime the plugin's handler gets: the agent's, seen through the plugin's view (see `createPluginRuntime`). */
  runtime?: AgentRuntime;
  /** Set on STATIC routes. */
  staticTarget?: StaticTarget;
}

/** Every plugin route of every agent, made by `loadPlugins` and served by `pluginRoutes`. */
export interface PluginRouteTable {
  /** All agents in order; the first is the default agent. */
  agents: readonly AgentRuntime[];
  /** Routes in agent order, then plugin order. */
  entries: readonly PluginRouteEntry[];
}
