/**
 * @module @parley/plugin-sdk
 * What plugin authors install: the plugin and route contract, typed helpers to declare them, and the agent
 * runtime as a plugin sees it.
 */
export { definePlugin, defineRoute } from './plugin/plugin';
export type { Plugin, PluginTest, PluginTestSuite } from './plugin/plugin';
export type {
  Route,
  RouteHandler,
  RouteRequest,
  RouteResponse,
  UploadedFile,
} from './plugin/route';
export type { AgentRuntime, Character, PluginLogger } from './plugin/runtime';
export { safeEqual } from './webhooks/safe-equal';
export type { RouteType } from '@parley/core';
