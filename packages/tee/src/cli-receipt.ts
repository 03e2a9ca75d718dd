import { receiptBundleSchema, receiptPageSchema, type TeeAgent } from '@parley/core';
import { z } from 'zod';
import { EXIT, type CliReport } from './cli-report';
import type { TeeEvent } from './event-log/tee-event';
import type { MeasurementPolicy } from './policy/measurement-policy';
import {
  verifyReceipt,
  type ReceiptVerification,
  type VerifyReceiptOptions,
} from './receipts/verify-receipt';
import { verifyReceiptChain } from './receipts/verify-receipt-chain';

export const RECEIPT_USAGE = `Usage: parley-tee verify-receipt <file> [options]
       parley-tee verify-receipt --chain <file> [options]

Verifies a Parley receipt offline: the agent key's signature, that the agent's TEE quote binds that key, the quote
(to Intel's root; TCB status and revocation with collateral) and, when given, the expected code. The file is the
answer of GET /api/messaging/messages/{id}/receipt (a receipt with the agent's attestation and event log).
With --chain the file is GET /api/messaging/channels/{id}/receipts (every page's receipts in one array, or one
page): the chain of each agent must be unbroken (nothing removed, repeated or reordered) and every receipt valid.

Options: those of \`verify\` (--collateral, --pccs, --accept, --now, --allow-debug, --allow-simulator,
--allow-expired-collateral, --allow-no-collateral, --json), and
  --chain                      the file holds a channel's receipts
  --mrtd <hex>                 expected MRTD
  --compose-hash <hex>         expected dstack compose hash (needs the event log in the file)
  --app-id <hex>               expected dstack app id (needs the event log in the file)
Exit status: as \`verify\`; 1 also for a broken chain or signature (the reason is printed);
3 when the quote is genuine but no collateral was given. A simulator receipt is never reported as hardware.`;

/** The command-line values the receipt commands read. */
export interface ReceiptCliValues {
  chain?: boolean;
  mrtd?: string;
  'compose-hash'?: string;
  'app-id'?: string;
  json?: boolean;
  'allow-no-collateral'?: boolean;
}

const envelope = z.object({ success: z.literal(true), data: z.unknown() });
const chainFile = z.union([
  receiptPageSchema,
  z.array(receiptBundleSchema.shape.receipt),
  z.array(receiptPageSchema),
]);

/** The JSON the file holds, the API's `{ success, data }` envelope removed. */
function contentOf(text: string): unknown {
  const json: unknown = JSON.parse(text);
  const wrapped = envelope.safeParse(json);
  return wrapped.success ? wrapped.data.data : json;
}

function expectedOf(values: ReceiptCliValues): MeasurementPolicy | undefined {
  const eventLog = {
    ...(values['compose-hash'] && { composeHash: values['compose-hash'] }),
    ...(values['app-id'] && { appId: values['app-id'] }),
  };
  const policy: MeasurementPolicy = {
    ...(values.mrtd && { mrTd: values.mrtd }),
    ...(Object.keys(eventLog).length > 0 && { eventLog }),
  };
  return Object.keys(policy).length > 0 ? policy : undefined;
}

function lineOf(
  result: ReceiptVerification,
  allowNoCollateral: boolean,
): { verdict: string; code: number } {
  if (!result.valid)
    return { verdict: `INVALID (${result.failure}: ${result.message})`, code: EXIT.invalid };
  const kind = result.simulator
    ? 'SIMULATOR: made with the TEE simulator, proves nothing about hardware'
    : result.hardware
      ? 'hardware TEE'
      : `${result.root} root, not Intel's: not hardware`;
  if (result.fullyVerified) return { verdict: `VALID (${kind})`, code: EXIT.valid };
  return allowNoCollateral
    ? {
        verdict: `VALID (${kind}; no collateral: TCB and revocation not checked)`,
        code: EXIT.valid,
      }
    : {
        verdict: `NOT FULLY VERIFIED (${kind}; signature, key binding and quote valid; no collateral: TCB and revocation not checked)`,
        code: EXIT.noCollateral,
      };
}

function describeReceipt(result: Extract<ReceiptVerification, { valid: true }>): string[] {
  const { body } = result.receipt;
  return [
    `receipt: ${body.id} (${body.kind}, seq ${body.seq})`,
    `agent: ${body.agent.agentId} (${body.agent.agentName}), key ${body.agent.publicKey}`,
    `channel: ${body.channelId}, message: ${body.messageId ?? '(none)'}`,
    `time: ${body.time}`,
    ...(body.reply
      ? [
          `content sha256: ${body.reply.content}`,
          ...body.reply.toolCalls.map(
            (call) =>
              `tool call ${call.id}: ${call.name}, input ${call.input}, result ${call.result}`,
          ),
          ...body.reply.approvals.map(
            (approval) =>
              `approval ${approval.toolCallId}: ${approval.decision} by ${approval.decidedBy ?? '(unrecorded)'} at ${approval.decidedAt}`,
          ),
        ]
      : []),
    ...(body.tombstone
      ? [
          `tombstone: ${body.tombstone.reason} by ${body.tombstone.removedBy ?? '(unknown)'}, ${body.tombstone.count} removed`,
        ]
      : []),
    `root: ${result.root}${result.tcb ? `, tcb status ${result.tcb.status}` : ''}`,
    ...(result.app?.composeHash ? [`compose hash: ${result.app.composeHash}`] : []),
  ];
}

/**
 * Runs `verify-receipt`: reads `text` (the file), verifies, and reports. `options` is the quote policy the
 * command line gave (collateral, `now`, roots…).
 */
export function runVerifyReceipt(
  text: string,
  values: ReceiptCliValues,
  options: VerifyReceiptOptions,
): CliReport | string {
  let content: unknown;
  try {
    content = contentOf(text);
  } catch {
    return 'cannot read input: the file is not JSON';
  }
  const expected = expectedOf(values);
  const allowNoCollateral = values['allow-no-collateral'] === true;
  if (!values.chain) {
    const bundle = receiptBundleSchema.safeParse(content);
    const receipt = bundle.success ? bundle.data.receipt : content;
    const attestation = bundle.success ? bundle.data.attestation : undefined;
    const eventLog = bundle.success ? bundle.data.eventLog : undefined;
    const result = verifyReceipt(receipt, {
      ...options,
      ...(attestation && { attestation }),
      ...(eventLog && { eventLog }),
      ...(expected && { expected }),
    });
    const { verdict, code } = lineOf(result, allowNoCollateral);
    if (values.json) {
      const { quote: _quote, ...rest } = result.valid ? result : { ...result, quote: undefined };
      return { lines: [JSON.stringify({ ...rest, exitCode: code }, null, 2)], code };
    }
    return {
      lines: [`verdict: ${verdict}`, ...(result.valid ? describeReceipt(result) : [])],
      code,
    };
  }
  const parsed = chainFile.safeParse(content);
  if (!parsed.success) return 'cannot read input: not a page of receipts nor an array of receipts';
  const pages = Array.isArray(parsed.data)
    ? parsed.data.every((entry) => 'receipts' in entry)
      ? parsed.data
      : [{ receipts: parsed.data, attestations: [] as TeeAgent[], nextCursor: null }]
    : [parsed.data];
  const receipts = pages.flatMap(
    (page) => page.receipts as z.infer<typeof receiptBundleSchema.shape.receipt>[],
  );
  const attestations = pages.flatMap((page) => page.attestations);
  const eventLog: TeeEvent[] | undefined = pages.find(
    (page) => 'eventLog' in page && page.eventLog,
  )?.eventLog;
  const chain = verifyReceiptChain(receipts);
  if (!chain.valid) {
    const verdict = `INVALID (CHAIN ${chain.failure}: ${chain.message})`;
    return {
      lines: [
        values.json
          ? JSON.stringify({ ...chain, exitCode: EXIT.invalid }, null, 2)
          : `verdict: ${verdict}`,
      ],
      code: EXIT.invalid,
    };
  }
  // Each key is checked once against its quote: the chain check already verified every signature.
  const byKey = new Map<string, (typeof receipts)[number]>();
  for (const receipt of receipts)
    byKey.set(`${receipt.body.agent.agentId}\0${receipt.body.agent.publicKey}`, receipt);
  let worst: { verdict: string; code: number } = { verdict: 'VALID', code: EXIT.valid };
  const lines: string[] = [];
  for (const receipt of byKey.values()) {
    const attestation = attestations.find(
      (entry) =>
        entry.agentId === receipt.body.agent.agentId &&
        entry.publicKey.toLowerCase() === receipt.body.agent.publicKey.toLowerCase(),
    );
    const result = verifyReceipt(receipt, {
      ...options,
      ...(attestation && { attestation }),
      ...(eventLog && { eventLog }),
      ...(expected && { expected }),
    });
    const line = lineOf(result, allowNoCollateral);
    lines.push(`key of agent ${receipt.body.agent.agentId}: ${line.verdict}`);
    if (
      line.code === EXIT.invalid ||
      (line.code === EXIT.noCollateral && worst.code === EXIT.valid)
    )
      worst = line;
  }
  const verdict =
    worst.code === EXIT.valid
      ? `VALID (${receipts.length} receipts, ${chain.chains.length} chains unbroken)`
      : worst.verdict;
  const chainLines = chain.chains.map(
    (entry) =>
      `chain agent ${entry.agentId} channel ${entry.channelId}: ${entry.length} receipts (${entry.tombstones} tombstones), head ${entry.head}`,
  );
  if (values.json) {
    return {
      lines: [
        JSON.stringify(
          {
            valid: worst.code !== EXIT.invalid,
            chains: chain.chains,
            keys: lines,
            exitCode: worst.code,
          },
          null,
          2,
        ),
      ],
      code: worst.code,
    };
  }
  return { lines: [`verdict: ${verdict}`, ...chainLines, ...lines], code: worst.code };
}
