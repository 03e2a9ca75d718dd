// The action plugin of the `tool-reply` scenario: one trivial action with parameters, so that a tool-calling
// model is offered it as a tool. It returns its input, so the figures are the agent loop's own cost and not the
// tool's.
import { defineAction, definePlugin } from '@parley/plugin-sdk';

/** `ECHO {text}`: answers with its input. */
export const echoAction = defineAction({
  name: 'ECHO',
  description: 'Returns the given text unchanged.',
  parameters: {
    type: 'object',
    properties: { text: { type: 'string', description: 'The text to echo' } },
    required: ['text'],
    additionalProperties: false,
  },
  handler: (_runtime, _message, _state, options) => ({
    success: true,
    text: String(options?.parameters?.text ?? ''),
  }),
});

/**
 * The `approval-reply` scenario's ECHO: the same action, but a call made for a message whose metadata says
 * `approve` waits for a person's approval.
 */
export const approvalEchoPlugin = definePlugin({
  name: 'bench-echo-approval',
  description: 'An ECHO action that needs approval for some messages',
  actions: [
    { ...echoAction, needsApproval: (_input, message) => message.metadata?.approve === true },
  ],
});

export const echoPlugin = definePlugin({
  name: 'bench-echo',
  description: 'An ECHO action for the bench',
  actions: [echoAction],
});
