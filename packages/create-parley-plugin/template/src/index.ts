import { defineAction, definePlugin, defineRoute } from '@parley/plugin-sdk';

/**
 * `SAY_HELLO`: something the agent can do. Its `parameters` (a JSON Schema) make it a tool the model is offered;
 * the model's arguments reach the handler checked against them, defaults filled in, and what the handler returns
 * goes back to the model, which answers from it. Replace it with your own actions.
 */
export const sayHelloAction = defineAction<{ name: string }>({
  name: 'SAY_HELLO',
  description: 'Greets someone by name, with the greeting this agent is set up with',
  parameters: {
    type: 'object',
    properties: {
      name: {
        type: 'string',
        minLength: 1,
        maxLength: 100,
        default: 'world',
        description: 'Who to greet',
      },
    },
    additionalProperties: false,
  },
  async handler(runtime, _message, _state, options) {
    const name = options?.parameters?.name ?? 'world';
    // The runtime is the agent's: its settings (the environment, or its character's `settings`) and character.
    const greeting = runtime.getSetting('HELLO_GREETING') ?? 'Hello';
    return {
      success: true,
      text: `${greeting}, ${name}! (${runtime.character.name}, through PLUGIN_NAME)`,
      values: { greeted: name },
    };
  },
});

/** `GET /PLUGIN_NAME/hello`: the agent says hello over HTTP. Replace it with your own routes. */
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
  actions: [sayHelloAction],
  routes: [helloRoute],
});
