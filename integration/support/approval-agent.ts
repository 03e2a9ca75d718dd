import { defineAction, definePlugin } from '@parley/plugin-sdk';
import type { ModelProvider } from '@parley/server';

/** The action that needs a person's approval before it runs. */
export const GUARDED_ACTION = 'DEPLOY';

/** What `DEPLOY` answers when it runs; what the model's final answer quotes. */
export const deployedText = (target: string) => `Deployed to ${target}`;

/**
 * A plugin with `DEPLOY {target}`, marked `needsApproval: true`. `ran` records the target of each call that
 * actually ran (a denied or expired call never reaches it).
 */
export function approvalPlugin(ran: string[]) {
  return definePlugin({
    name: 'approval-test',
    description: 'An action that waits for a person',
    actions: [
      defineAction<{ target: string }>({
        name: GUARDED_ACTION,
        description: 'Deploys the app to a target',
        parameters: {
          type: 'object',
          properties: { target: { type: 'string', minLength: 1 } },
          required: ['target'],
          additionalProperties: false,
        },
        needsApproval: true,
        handler: (_runtime, _message, _state, options) => {
          const target = options?.parameters?.target ?? '?';
          ran.push(target);
          return { success: true, text: deployedText(target) };
        },
      }),
    ],
  });
}

/** The results at the end of a conversation: the tool turns after the model's last call. */
function lastResults(messages: readonly { role: string; content: string }[]): string[] {
  const results: string[] = [];
  for (let index = messages.length - 1; messages[index]?.role === 'tool'; index -= 1) {
    results.unshift(messages[index]!.content);
  }
  return results;
}

/**
 * A model that calls `DEPLOY {target: "prod"}` when the user's message says "deploy" (and also
 * `{target: "staging"}`, first, in the same step when it says "twice"), answers `The tool said: <results>` once
 * the calls' results (outputs, or the refusals a denial gives) came back, and `Hello.` to anything else.
 */
export function approvalModel(): ModelProvider {
  let calls = 0;
  return {
    name: 'approval-test',
    callsTools: true,
    // eslint-disable-next-line @typescript-eslint/require-await
    async *stream(request) {
      const last = request.messages.at(-1);
      if (last?.role === 'tool') {
        const results = lastResults(request.messages).join(' | ');
        yield { type: 'text-delta', delta: `The tool said: ${results}` };
      } else if (last?.role === 'user' && /deploy/i.test(last.content)) {
        const targets = /twice/i.test(last.content) ? ['staging', 'prod'] : ['prod'];
        for (const target of targets) {
          calls += 1;
          const input = JSON.stringify({ target });
          yield { type: 'tool-call', toolCallId: `call_${calls}`, toolName: GUARDED_ACTION, input };
        }
        yield { type: 'finish', finishReason: 'tool-calls' };
        return;
      } else {
        yield { type: 'text-delta', delta: 'Hello.' };
      }
      yield { type: 'finish', finishReason: 'stop' };
    },
  };
}
