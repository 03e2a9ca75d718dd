import { receiptSchema, type Receipt } from '@parley/core';
import { receiptDigest, receiptSignatureValid } from './receipt-digest';

/** Why a list of receipts is not an unbroken chain. */
export type ChainFailure =
  /** An entry is not a receipt. */
  | 'RECEIPT_FORMAT'
  /** An entry's body does not match its hash. */
  | 'DIGEST'
  /** An entry is not signed by its agent key. */
  | 'SIGNATURE'
  /** The same receipt appears twice. */
  | 'DUPLICATE'
  /** A chain does not start at its first receipt (seq 1, no `prev`). */
  | 'START'
  /** Receipts are missing between two entries (a removed receipt). */
  | 'GAP'
  /** An entry comes before one it follows in its chain (reordered). */
  | 'ORDER'
  /** An entry's `prev` is not the digest of the receipt before it in its chain. */
  | 'PREV'
  /** A tombstone names a removed receipt that is not earlier in its chain. */
  | 'TOMBSTONE';

/** One chain (an agent in a channel) that verified. */
export interface VerifiedChain {
  agentId: string;
  channelId: string;
  length: number;
  /** The newest receipt's digest: compare with the head the server (or another copy) shows. */
  head: string;
  tombstones: number;
}

/** The outcome of {@link verifyReceiptChain}. */
export type ChainVerification =
  | { valid: true; chains: VerifiedChain[] }
  | {
      valid: false;
      failure: ChainFailure;
      /** Position (from 0) of the first entry that breaks the chain. */
      index: number;
      receiptId?: string;
      message: string;
    };

/** Options of {@link verifyReceiptChain}. */
export interface VerifyChainOptions {
  /**
   * Require each chain to start at seq 1 (default true). False checks a later page on its own: its first
   * receipt of each chain may follow receipts not given.
   */
  requireStart?: boolean;
}

interface ChainState {
  chain: VerifiedChain;
  seq: number;
  index: number;
  hashes: Set<string>;
}

/**
 * Verifies receipts of one or more chains (each agent in each channel has its own), in the order given: every
 * entry's digest and signature, then that each entry's `prev` is the digest of the entry before it in its chain
 * and its `seq` the next one; a tombstone must name receipts earlier in its chain. A removed, duplicated or
 * reordered receipt fails, naming the entry where the chain breaks. The signature check here is the key's
 * alone: pair it with {@link verifyReceipt} of the receipts (or of one per key) to tie the key to a TEE.
 *
 * @example
 * const result = verifyReceiptChain(pages.flatMap((page) => page.receipts));
 * if (!result.valid) console.error(`receipt ${result.index}: ${result.message}`);
 */
export function verifyReceiptChain(
  receipts: readonly unknown[],
  options: VerifyChainOptions = {},
): ChainVerification {
  const requireStart = options.requireStart ?? true;
  const chains = new Map<string, ChainState>();
  const seen = new Map<string, number>();
  const parsed: Receipt[] = [];
  for (const [index, input] of receipts.entries()) {
    const result = receiptSchema.safeParse(input);
    if (!result.success) {
      const issue = result.error.issues[0];
      return {
        valid: false,
        failure: 'RECEIPT_FORMAT',
        index,
        message: `entry ${index} is not a receipt${issue ? ` (${issue.path.join('.')}: ${issue.message})` : ''}`,
      };
    }
    parsed.push(result.data);
  }
  /** Where, after `index`, the receipt of chain `key` with `seq` is (a reordered list has it later). */
  const laterIndexOf = (key: string, seq: number, index: number) =>
    parsed.findIndex(
      (other, position) =>
        position > index &&
        other.body.seq === seq &&
        `${other.body.agent.agentId}\0${other.body.channelId}` === key,
    );
  for (const [index, receipt] of parsed.entries()) {
    const { body } = receipt;
    const at = `receipt ${index} (id ${body.id}, seq ${body.seq}, agent ${body.agent.agentId}, channel ${body.channelId})`;
    const broken = (failure: ChainFailure, message: string): ChainVerification => ({
      valid: false,
      failure,
      index,
      receiptId: body.id,
      message: `${at}: ${message}`,
    });
    let digest: string;
    try {
      digest = receiptDigest(body);
    } catch {
      return broken('RECEIPT_FORMAT', 'its body cannot be encoded');
    }
    if (digest !== receipt.hash) return broken('DIGEST', 'its body does not match its hash');
    if (!receiptSignatureValid(receipt.hash, receipt.signature, body.agent.publicKey)) {
      return broken('SIGNATURE', 'it is not signed by its agent key');
    }
    const earlier = seen.get(receipt.hash);
    if (earlier !== undefined) return broken('DUPLICATE', `it repeats receipt ${earlier}`);
    seen.set(receipt.hash, index);
    const key = `${body.agent.agentId}\0${body.channelId}`;
    const state = chains.get(key);
    if (!state) {
      if (requireStart && (body.seq !== 1 || body.prev !== null)) {
        const later = laterIndexOf(key, 1, index);
        if (later >= 0) {
          return broken('ORDER', `receipt ${later} (seq 1) of its chain comes after it: reordered`);
        }
        return broken(
          'START',
          `the chain starts here, at seq ${body.seq}: receipts 1 to ${body.seq - 1} are missing`,
        );
      }
    } else if (body.seq <= state.seq) {
      return broken(
        'ORDER',
        `it comes after receipt ${state.index} (seq ${state.seq}) of its chain: reordered`,
      );
    } else if (body.seq > state.seq + 1) {
      const later = laterIndexOf(key, state.seq + 1, index);
      if (later >= 0) {
        return broken(
          'ORDER',
          `receipt ${later} (seq ${state.seq + 1}) of its chain comes after it: reordered`,
        );
      }
      return broken(
        'GAP',
        `receipts ${state.seq + 1} to ${body.seq - 1} of its chain are missing after receipt ${state.index}`,
      );
    } else if (body.prev !== state.chain.head) {
      return broken(
        'PREV',
        `its prev is not the digest of receipt ${state.index}, the one before it in its chain`,
      );
    }
    const hashes = state?.hashes ?? new Set<string>();
    if (body.tombstone) {
      const unknown = body.tombstone.removed.find((entry) => !hashes.has(entry.receipt));
      if (unknown && (requireStart || state)) {
        return broken(
          'TOMBSTONE',
          `it names a removed receipt ${unknown.receipt.slice(0, 16)}… that is not earlier in its chain`,
        );
      }
    }
    hashes.add(receipt.hash);
    const chain: VerifiedChain = state?.chain ?? {
      agentId: body.agent.agentId,
      channelId: body.channelId,
      length: 0,
      head: receipt.hash,
      tombstones: 0,
    };
    chain.length += 1;
    chain.head = receipt.hash;
    if (body.kind === 'tombstone') chain.tombstones += 1;
    chains.set(key, { chain, seq: body.seq, index, hashes });
  }
  return { valid: true, chains: [...chains.values()].map((state) => state.chain) };
}
