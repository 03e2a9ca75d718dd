import { toSseEvents } from '@parley/server/testing';

// The fake model's script in the `tool-reply` scenario (`startFakeOpenAIServer`'s `events`, a function of the
// request body), in OpenAI's streamed chat-completions shape:
// - a request offering the ECHO tool whose conversation ends with a user's message asking for an echo: one
//   `tool_calls` call of ECHO (its id and name in the first delta, its arguments in 8-character fragments, then
//   `finish_reason: "tool_calls"`);
// - a request whose conversation ends with a tool result: the text answer;
// - anything else: the plain answer, the same as the other scenarios' model reply.
// Every answer is encoded once and sent as one write, as the other scenarios' fixed reply is, so the server
// reads the same number of pieces whatever the script.

/** The user's message that makes the model call ECHO; anything else gets the plain answer. */
export const ECHO_REQUEST = 'echo: hello from the bench';
const ECHO_ARGUMENTS = JSON.stringify({ text: 'hello from the bench' });

/** The plain answer (as `lib/harness.mjs`'s MODEL_REPLY) and the answer after the tool result, of similar length. */
export const PLAIN_ANSWER =
  '<response><thought>Greet them back.</thought><actions>REPLY</actions>' +
  '<text>Hello! I am the benchmark model, and I always answer at once.</text></response>';
const TOOL_ANSWER =
  '<response><thought>The echo came back.</thought><actions>REPLY</actions>' +
  '<text>The echo said: hello from the bench. I always answer at once.</text></response>';

const CHUNK = 8;

function event(choices) {
  return `data: ${JSON.stringify({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 0, model: 'fake-model', choices })}\n\n`;
}

const delta = (value, finishReason = null) =>
  event([{ index: 0, delta: value, finish_reason: finishReason }]);

/** A text answer in 8-character pieces (the first with the role), the stop chunk and `[DONE]`, as one write. */
function textEvents(text) {
  return [toSseEvents(text, CHUNK).join('')];
}

const plainEvents = textEvents(PLAIN_ANSWER);
const toolAnswerEvents = textEvents(TOOL_ANSWER);

// The call's events around its id, which is new for each call (as a real model's): the id's place is split out.
const ID = 'call_ID_PLACEHOLDER';
const [callHead, callTail] = (() => {
  const events = [
    delta({ role: 'assistant', content: null }),
    delta({
      tool_calls: [
        { index: 0, id: ID, type: 'function', function: { name: 'ECHO', arguments: '' } },
      ],
    }),
  ];
  for (let start = 0; start < ECHO_ARGUMENTS.length; start += CHUNK) {
    const fragment = ECHO_ARGUMENTS.slice(start, start + CHUNK);
    events.push(delta({ tool_calls: [{ index: 0, function: { arguments: fragment } }] }));
  }
  events.push(delta({}, 'tool_calls'), 'data: [DONE]\n\n');
  return events.join('').split(ID);
})();
let calls = 0;

/** What the fake model streams for a chat-completions request body. */
export function echoToolScript(body) {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const last = messages.at(-1);
  if (last?.role === 'tool') return toolAnswerEvents;
  const offersEcho =
    Array.isArray(body.tools) && body.tools.some((tool) => tool?.function?.name === 'ECHO');
  if (offersEcho && last?.role === 'user' && last.content === ECHO_REQUEST) {
    calls += 1;
    return [`${callHead}call_bench_${calls.toString(36)}${callTail}`];
  }
  return plainEvents;
}
