/**
 * @module @parley/example-schedule
 * Example Parley plugin for SPEC.md's scheduling reference route: `POST /schedule`.
 */
export { schedulePlugin, schedulePlugin as default } from './schedule-plugin';
export { schedulePluginTests } from './schedule-plugin-tests';
export { parseScheduleRequest, scheduleRoute } from './schedule-route';
export type { ScheduleRequest } from './schedule-route';
export { parseSendAt } from './parse-send-at';
