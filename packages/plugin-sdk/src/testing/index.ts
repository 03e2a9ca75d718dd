/**
 * @module @parley/plugin-sdk/testing
 * Test a plugin the way it runs: its `tests` suites against a live in-process Parley server, routes called
 * over HTTP. `runPluginSuites` needs only a runtime; `runPluginTests` and `startTestServer` load
 * `@parley/server` from the plugin's own project (an optional peer dependency of the SDK).
 */
export { expectStatus } from './expect-status';
export { fetchRoute } from './fetch-route';
export type { FetchRouteInit } from './fetch-route';
export { loadParleyServer } from './load-parley-server';
export type {
  ActionCallOutcome,
  HarnessActionCall,
  HarnessServer,
  HarnessServerOptions,
  ParleyServerModule,
} from './load-parley-server';
export { toPluginTestReport } from './plugin-test-report';
export type { PluginTestReport, PluginTestResult } from './plugin-test-report';
export { DEFAULT_PLUGIN_TEST_TIMEOUT_MS, runPluginSuites } from './run-plugin-suites';
export type { RunPluginSuitesOptions } from './run-plugin-suites';
export { runPluginTests } from './run-plugin-tests';
export type { RunPluginTestsOptions } from './run-plugin-tests';
export { startTestServer } from './start-test-server';
export type { TestServer, TestServerOptions } from './start-test-server';
export { recordResponse } from './record-response';
export type { RecordedResponse } from './record-response';
