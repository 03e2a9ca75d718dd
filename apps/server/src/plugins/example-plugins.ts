import { calculatorPlugin } from '@parley/example-calculator';
import { githubPlugin } from '@parley/example-github';
import { schedulePlugin } from '@parley/example-schedule';
import { sendAgentMessagePlugin } from '@parley/example-send-agent-message';
import { uploadPlugin } from '@parley/example-upload';
import { webhookPlugin } from '@parley/example-webhook';
import type { Plugin } from '@parley/plugin-sdk';

/**
 * The example plugins the app loads by default, so that every reference route of SPEC.md answers out of the
 * box and the default agent can act (the calculator). Keyed by plugin name, which is also what `PLUGINS` and a
 * character's `plugins` list use.
 */
export const EXAMPLE_PLUGINS: ReadonlyMap<string, Plugin> = new Map(
  [
    webhookPlugin,
    sendAgentMessagePlugin,
    githubPlugin,
    uploadPlugin,
    schedulePlugin,
    calculatorPlugin,
  ].map((plugin) => [plugin.name, plugin]),
);
