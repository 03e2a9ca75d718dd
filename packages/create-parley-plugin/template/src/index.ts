import { definePlugin, defineRoute } from '@parley/plugin-sdk';

/** `GET /PLUGIN_NAME/hello`: the agent says hello. Replace it with your own routes. */
export const helloRoute = defineRoute({
  type: 'GET',
  path: '/PLUGIN_NAME/hello',
  name: 'hello',
  public: true,
  async handler(_req, res, runtime) {
    res.json({ success: true, message: `Hello from ${runtime.character.name}` });
  },
});

export default definePlugin({
  name: 'PLUGIN_NAME',
  description: 'A Parley plugin.',
  routes: [helloRoute],
});
