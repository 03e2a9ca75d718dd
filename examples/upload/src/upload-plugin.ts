import { definePlugin } from '@parley/plugin-sdk';
import { uploadPluginTests } from './upload-plugin-tests';
import { uploadRoute } from './upload-route';

/**
 * The upload example plugin: `POST /upload` takes one file and the agent posts a message with the file as an
 * attachment entry. Setting: `NOTIFICATION_CHANNEL_ID` (the default channel).
 */
export const uploadPlugin = definePlugin({
  name: 'upload',
  description: 'Takes a file upload; the agent posts it into a channel as an attachment.',
  routes: [uploadRoute],
  tests: uploadPluginTests,
});
