import '../tee/node-buffer';
import type { ReceiptBundle } from '@parley/core';
import { textDigest, verifyReceiptChain } from '@parley/tee';
import { h } from '../dom';
import { checkAgentBinding } from '../tee/check-binding';

/** What the browser could check of a receipt, and whether all of it held. */
export interface ReceiptChecks {
  verified: boolean;
  lines: string[];
}

/**
 * Checks a reply's receipt with `@parley/tee` in the browser: the agent key's signature of the receipt, that the
 * agent's TEE quote binds that key, and that the receipt's text digest is the text shown. The quote's own
 * signatures and certificate chain need node:crypto: `parley-tee verify-receipt` checks those (and the code).
 */
export function checkReceipt(bundle: ReceiptBundle, shownText: string): ReceiptChecks {
  const { receipt, attestation } = bundle;
  const { body } = receipt;
  const signed = verifyReceiptChain([receipt], { requireStart: false }).valid;
  const bound =
    attestation !== undefined &&
    attestation.publicKey.toLowerCase() === body.agent.publicKey.toLowerCase() &&
    checkAgentBinding({ ...attestation, ...body.agent }).bound;
  const sameText = body.reply !== undefined && body.reply.content === textDigest(shownText);
  const lines = [
    signed ? "Signed by the agent's key ✓" : 'The signature does not hold ✗',
    bound ? "The key is the one the agent's TEE quote binds ✓" : 'No TEE quote binds this key ✗',
    sameText ? 'Its text digest is the text shown ✓' : 'Its text digest is not the text shown ✗',
    body.simulator
      ? 'Made with the TEE simulator: it proves nothing about hardware'
      : 'Made in a hardware TEE (check the quote with parley-tee)',
    `Chain: receipt ${body.seq} of ${body.agent.agentName} in this channel`,
    ...(body.reply?.toolCalls ?? []).map((call) => `Tool call: ${call.name}`),
    ...(body.reply?.approvals ?? []).map(
      (approval) =>
        `Approval: ${approval.decision} by ${approval.decidedBy ?? 'unrecorded'} at ${approval.decidedAt}`,
    ),
  ];
  return { verified: signed && bound && sameText, lines };
}

/** The receipt's checks, what it proves, and the file and command that check the rest offline. */
export function receiptPanel(bundle: ReceiptBundle, checks: ReceiptChecks): HTMLElement {
  const file = new Blob([JSON.stringify(bundle, null, 2)], { type: 'application/json' });
  const link = h(
    'a',
    { href: URL.createObjectURL(file), download: `receipt-${bundle.receipt.body.id}.json` },
    'Download receipt.json',
  );
  return h(
    'div',
    { className: 'receipt-panel' },
    h('p', {}, checks.verified ? 'Verified in this browser.' : 'Not verified.'),
    h('ul', {}, ...checks.lines.map((line) => h('li', {}, line))),
    h(
      'p',
      {},
      'A receipt proves which agent said this, with a key only its TEE holds, and its place in the ' +
        "channel's chain (nothing removed unannounced). Check the quote, the code and the chain offline: ",
      h('code', {}, 'npx parley-tee verify-receipt receipt.json'),
      ' ',
      link,
    ),
  );
}
