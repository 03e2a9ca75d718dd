import { z } from 'zod';
import { UI_CHAT_PATH } from '../../ui-chat/ui-chat-routes';
import { uiChatRequestSchema } from '../../ui-chat/ui-chat-schemas';
import type { DocumentedOperation } from './built-in-operations';

const agentIdParam = { agentId: z.string().describe("The agent's id") };

const STREAM_DESCRIPTION =
  "The AI SDK's UI message stream (header `x-vercel-ai-ui-message-stream: v1`): server-sent events of " +
  "`start` (the reply's id is the message's), `data-parley-reply`, `text-start`/`text-delta`/`text-end`, " +
  '`tool-input-available`, `tool-approval-request`, `tool-output-available`/`tool-output-error`/' +
  '`tool-output-denied`, then `data-parley-end` and `finish` (or `data-parley-pause` and `finish` while ' +
  'approvals wait, or `error`), then `data: [DONE]`.';

/** The AI SDK's UI message stream face (`useChat` with `DefaultChatTransport`), as the documents describe it. */
export const UI_CHAT_OPERATIONS: readonly DocumentedOperation[] = [
  {
    method: 'post',
    path: `${UI_CHAT_PATH}/:agentId`,
    operationId: 'uiChat',
    summary: "AI SDK UI chat: useChat's DefaultChatTransport, answered by the agent",
    description:
      "The chat `id` names the channel (a UUID is that channel). The last message, a user's, is posted and " +
      "its reply streamed; or the last message, the agent's, carries approval responses (tool parts in the " +
      '`approval-responded` state): the calls are decided and the rest of the reply streamed. Closing the ' +
      'connection does not cancel the reply. ' +
      STREAM_DESCRIPTION,
    tag: 'messaging',
    auth: ['apiKey'],
    pathParams: agentIdParam,
    body: uiChatRequestSchema,
    responses: { 200: { description: 'The UI message stream.', text: 'text/event-stream' } },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'CONFLICT', 'RATE_LIMITED', 'UNAVAILABLE'],
  },
  {
    method: 'get',
    path: `${UI_CHAT_PATH}/:agentId/:chatId/stream`,
    operationId: 'resumeUiChat',
    summary: "AI SDK UI chat: resume the chat's running reply",
    description: `The chat's running reply from its start (204 when none runs in this process). ${STREAM_DESCRIPTION}`,
    tag: 'messaging',
    auth: ['apiKey'],
    pathParams: { ...agentIdParam, chatId: z.string().describe("The chat's id") },
    responses: {
      200: { description: 'The UI message stream.', text: 'text/event-stream' },
      204: { description: 'No reply of the chat runs.' },
    },
    errors: ['BAD_REQUEST', 'NOT_FOUND'],
  },
];
