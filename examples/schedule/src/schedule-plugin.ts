import { definePlugin } from '@parley/plugin-sdk';
import { schedulePluginTests } from './schedule-plugin-tests';
import { scheduleRoute } from './schedule-route';

/** The schedule example plugin: `POST /schedule` makes the agent post a message later, durably. */
export const schedulePlugin = definePlugin({
  name: 'schedule',
  description: 'Schedules a message for the agent to post at a given time.',
  routes: [scheduleRoute],
  tests: schedulePluginTests,
});
