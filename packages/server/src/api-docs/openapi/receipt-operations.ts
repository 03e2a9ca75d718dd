import {
  apiSuccessSchema,
  receiptBundleSchema,
  receiptPageQuerySchema,
  receiptPageSchema,
  uuidSchema,
} from '@parley/core';
import type { DocumentedOperation } from './built-in-operations';

const base = { tag: 'tee', auth: ['apiKey'] as const };

/**
 * Receipts (`receipts/receipt-routes.ts`): each stored reply signed by its agent's attested key, chained per agent
 * and channel. With `TEE_MODE=OFF` nothing is signed and both answer 404.
 */
export const RECEIPT_OPERATIONS: readonly DocumentedOperation[] = [
  {
    ...base,
    method: 'get',
    path: '/api/messaging/messages/:messageId/receipt',
    operationId: 'getMessageReceipt',
    summary: "A reply's signed receipt",
    description:
      'The receipt of a stored reply (digests of its text, tool calls, approvals and the message it answers, ' +
      'its place in its chain), signed with the agent key the TEE quote binds, with the agent registration ' +
      '(the quote) and the TEE event log: save it to a file and run `parley-tee verify-receipt FILE`. Written ' +
      'just after the reply ends (its id is `receiptId` in the final events); a deleted reply keeps its receipt.',
    pathParams: { messageId: uuidSchema },
    responses: {
      200: {
        description: 'The receipt and what checks it.',
        json: apiSuccessSchema(receiptBundleSchema),
      },
    },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'UNAVAILABLE'],
  },
  {
    ...base,
    method: 'get',
    path: '/api/messaging/channels/:channelId/receipts',
    operationId: 'listChannelReceipts',
    summary: "A channel's receipts, in chain order",
    description:
      'Every receipt of the channel (each agent has a chain: `seq`, and `prev` the digest of the one before), ' +
      'tombstones of deleted replies included, oldest first; page on with `after` set to `nextCursor`. ' +
      'Check them with `parley-tee verify-receipt --chain FILE`. Receipts outlive a deleted channel.',
    pathParams: { channelId: uuidSchema },
    query: receiptPageQuerySchema,
    responses: {
      200: { description: 'A page of receipts.', json: apiSuccessSchema(receiptPageSchema) },
    },
    errors: ['BAD_REQUEST', 'NOT_FOUND', 'UNAVAILABLE'],
  },
];
