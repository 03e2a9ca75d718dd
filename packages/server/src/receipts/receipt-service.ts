import { createHash, randomUUID } from 'node:crypto';
import {
  ParleyError,
  receiptSchema,
  teeAgentSchema,
  type Receipt,
  type ReceiptBody,
  type ReceiptBundle,
  type ReceiptPage,
  type ReceiptTombstone,
  type StoredMessage,
  type TeeAgent,
  type ToolCallRecord,
} from '@parley/core';
import { canonicalJson, jsonDigest, textDigest } from '@parley/tee';
import { type Kysely, sql } from 'kysely';
import type { Logger } from 'pino';
import { KeyedQueue } from '../messaging/keyed-queue';
import type { ReplyStream } from '../reply/parts/reply-stream';
import type { MessageStore } from '../storage/message-store';
import type { DatabaseSchema } from '../storage/schema';
import { storageCall } from '../storage/to-storage-error';
import type { AgentSigner, TeeService } from '../tee/tee-service';
import type { ReceiptTables } from './receipt-tables';

/** A receipt to append, before its place in the chain is known. */
type Entry = Pick<ReceiptBody, 'kind' | 'id' | 'messageId' | 'reply' | 'tombstone'>;
/** Computes a bulk tombstone inside the chain's turn (undefined: nothing to write). */
type TombstoneOf = (
  trx: Kysely<DatabaseSchema & ReceiptTables>,
) => Promise<ReceiptTombstone | undefined>;

/** What a deletion removed, for its tombstone. */
export interface Removal {
  channelId: string;
  reason: ReceiptTombstone['reason'];
  /** The one message removed (`message-deleted`). */
  messageId?: string;
  /** Who removed it, as the server knows them. */
  removedBy: string | null;
}

/** Options of {@link ReceiptService}. */
export interface ReceiptServiceOptions {
  db: Kysely<DatabaseSchema>;
  sync: () => Promise<void>;
  tee: TeeService;
  logger: Logger;
  /** Receipt times (default `Date.now`). */
  clock?: () => number;
  /**
   * This process is the database's only writer (the embedded database): chains are serialised in memory and
   * their heads remembered, so a receipt costs one INSERT instead of a locked transaction of five statements.
   */
  exclusive?: boolean;
  /** With `exclusive`: the message store, whose recent messages hold the question a reply answers. */
  messages?: MessageStore;
}

/** Most receipts one page of a channel's receipts holds. */
export const MAX_RECEIPT_PAGE = 200;
/** Most removed receipts a tombstone lists (it counts them all). */
const MAX_TOMBSTONE_ENTRIES = 1024;

/** The id of a reply's receipt: derived from its message id, so it is known before the receipt is written. */
export function receiptIdOf(messageId: string): string {
  const digest = createHash('sha256').update(`parley/receipt-id/v1\0${messageId}`).digest();
  digest[6] = (digest[6]! & 0x0f) | 0x80;
  digest[8] = (digest[8]! & 0x3f) | 0x80;
  const hex = digest.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The newest receipt of an agent's chain in a channel (its `seq` and `hash`: the next receipt links to it). */
const chainHead = (
  db: Kysely<DatabaseSchema & ReceiptTables>,
  agentId: string,
  channelId: string,
) =>
  db
    .selectFrom('receipts')
    .select(['seq', 'hash'])
    .where('agent_id', '=', agentId)
    .where('channel_id', '=', channelId)
    .orderBy('seq', 'desc')
    .limit(1)
    .executeTakeFirst();

const registrationDigest = (registration: TeeAgent) =>
  createHash('sha256').update(canonicalJson(registration)).digest('hex');

function toolCallsOf(
  message: StoredMessage,
): ReceiptBody['reply'] extends infer R ? (R extends { toolCalls: infer T } ? T : never) : never {
  const records = (message.raw_message?.toolCalls ?? []) as ToolCallRecord[];
  return records.map((record) => ({
    id: record.toolCallId,
    name: record.toolName,
    input: jsonDigest(record.input ?? null),
    result: jsonDigest(
      record.error !== undefined ? { error: record.error } : { output: record.output ?? null },
    ),
  }));
}

/**
 * Receipts: each stored reply signed by its agent's attested key, chained per agent and channel, and tombstones
 * for replies deleted. Appending takes a transaction-scoped advisory lock on the chain, so processes sharing one
 * PostgreSQL append one link at a time, each after the last; `(agent, channel, seq)` is unique besides. Signing
 * runs after the reply's end part went out (a stream consumer), off the reply's path.
 */
export class ReceiptService {
  readonly #db: Kysely<DatabaseSchema & ReceiptTables>;
  readonly #options: ReceiptServiceOptions;
  readonly #logger: Logger;
  readonly #inFlight = new Set<Promise<unknown>>();
  /** With `exclusive`: each chain's appends in turn, its last link, and the registrations already stored. */
  readonly #chains = new KeyedQueue();
  readonly #heads = new Map<string, { seq: number; hash: string }>();
  readonly #storedAttestations = new Set<string>();

  constructor(options: ReceiptServiceOptions) {
    this.#options = options;
    this.#db = options.db.withTables<ReceiptTables>();
    this.#logger = options.logger.child({ component: 'receipts' });
  }

  /** Whether receipts are made at all (a TEE is configured). */
  get enabled(): boolean {
    return this.#options.tee.config.mode !== 'OFF';
  }

  /** A reply stream consumer: once the reply is stored, its receipt is signed and appended. */
  readonly consumer = (stream: ReplyStream): void => {
    if (!this.enabled) return;
    void stream.ended.then((part) => {
      if (part.type !== 'reply-end' || !part.message) return;
      // A reply that never paused had no approvals to look up.
      this.#track(this.recordReply(part.message, { paused: stream.liveFrom > 0 }));
    });
  };

  /** Resolves once every receipt being written has been (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  #track(work: Promise<unknown>): void {
    const guarded = work.catch((error: unknown) => {
      this.#logger.error({ err: error }, 'a receipt could not be written');
    });
    this.#inFlight.add(guarded);
    void guarded.finally(() => this.#inFlight.delete(guarded));
  }

  /** Signs and appends the receipt of a stored reply; resolves with it (or the one stored before). */
  async recordReply(
    message: StoredMessage,
    { paused = true }: { paused?: boolean } = {},
  ): Promise<Receipt | undefined> {
    const signer = await this.#options.tee.signer(message.author_id);
    if (!signer) return undefined;
    const toolCalls = toolCallsOf(message);
    const [approvals, question] = await Promise.all([
      // Only a reply that made calls can have had them approved.
      toolCalls.length === 0 || !paused
        ? []
        : storageCall('receipt', () =>
            this.#db
              .selectFrom('approval_requests')
              .select(['tool_call_id', 'decision', 'decided_at', 'decided_by'])
              .where('reply_id', '=', message.id)
              .where('decision', 'is not', null)
              .orderBy('decided_at')
              .orderBy('tool_call_id')
              .execute(),
          ),
      message.in_reply_to ? this.#question(message) : undefined,
    ]);
    const reply: NonNullable<ReceiptBody['reply']> = {
      content: textDigest(message.content),
      toolCalls,
      approvals: approvals.map((row) => ({
        toolCallId: row.tool_call_id,
        decision: row.decision as 'approved' | 'denied' | 'expired',
        // Bounded as the receipt schema bounds it (an entity id is far shorter).
        decidedBy: row.decided_by ? row.decided_by.slice(0, 1024) : null,
        decidedAt: new Date(row.decided_at!).toISOString(),
      })),
      inReplyTo: question
        ? { messageId: question.id, content: textDigest(question.content) }
        : null,
    };
    return this.#append(signer, message.channel_id, {
      kind: 'reply',
      id: receiptIdOf(message.id),
      messageId: message.id,
      reply,
    });
  }

  /** The message a reply answers: from the store's recent messages when this process is the only writer. */
  async #question(message: StoredMessage): Promise<{ id: string; content: string } | undefined> {
    const id = message.in_reply_to!;
    if (this.#options.exclusive && this.#options.messages) {
      const recent = await this.#options.messages.recent(message.channel_id, 20);
      const found = recent.find((entry) => entry.id === id);
      if (found) return found;
    }
    return storageCall('receipt', () =>
      this.#db
        .selectFrom('messages')
        .select(['id', 'content'])
        .where('id', '=', id)
        .executeTakeFirst(),
    );
  }

  /** Appends the tombstones of a deletion (one per chain it touched); never rejects: a failure is logged. */
  async recordRemoval(removal: Removal): Promise<void> {
    if (!this.enabled) return;
    try {
      await this.#recordRemoval(removal);
    } catch (error) {
      this.#logger.error(
        { err: error, channelId: removal.channelId, reason: removal.reason },
        'a tombstone receipt could not be written',
      );
    }
  }

  async #recordRemoval(removal: Removal): Promise<void> {
    const { channelId, reason, messageId, removedBy } = removal;
    if (messageId) {
      const row = await storageCall('receipt', () =>
        this.#db
          .selectFrom('receipts')
          .select(['agent_id', 'hash'])
          .where('message_id', '=', messageId)
          .where('kind', '=', 'reply')
          .executeTakeFirst(),
      );
      if (!row) return;
      const signer = await this.#options.tee.signer(row.agent_id);
      if (!signer) return this.#noSigner(row.agent_id, channelId);
      await this.#append(signer, channelId, {
        kind: 'tombstone',
        id: randomUUID(),
        messageId,
        tombstone: {
          reason,
          removedBy,
          removed: [{ messageId, receipt: row.hash }],
          count: 1,
        },
      });
      return;
    }
    const agents = await storageCall('receipt', () =>
      this.#db
        .selectFrom('receipts')
        .select('agent_id')
        .distinct()
        .where('channel_id', '=', channelId)
        .execute(),
    );
    for (const { agent_id: agentId } of agents) {
      const signer = await this.#options.tee.signer(agentId);
      if (!signer) {
        this.#noSigner(agentId, channelId);
        continue;
      }
      await this.#append(
        signer,
        channelId,
        { kind: 'tombstone', id: randomUUID(), messageId: null },
        async (trx) => {
          // The replies since the chain's last bulk tombstone: what this clear or delete removed.
          const since = await trx
            .selectFrom('receipts')
            .select(sql<string>`coalesce(max(seq), 0)`.as('seq'))
            .where('agent_id', '=', agentId)
            .where('channel_id', '=', channelId)
            .where('kind', '=', 'tombstone')
            .where('message_id', 'is', null)
            .executeTakeFirstOrThrow();
          const removed = await trx
            .selectFrom('receipts')
            .select(['message_id', 'hash'])
            .where('agent_id', '=', agentId)
            .where('channel_id', '=', channelId)
            .where('kind', '=', 'reply')
            .where('seq', '>', Number(since.seq))
            .orderBy('seq', 'desc')
            .execute();
          if (removed.length === 0) return undefined;
          return {
            reason,
            removedBy,
            removed: removed
              .slice(0, MAX_TOMBSTONE_ENTRIES)
              .reverse()
              .map((entry) => ({ messageId: entry.message_id!, receipt: entry.hash })),
            count: removed.length,
          };
        },
      );
    }
  }

  #noSigner(agentId: string, channelId: string): void {
    this.#logger.warn(
      { agentId, channelId },
      'no tombstone: the agent has no registered key in this process; its chain shows a gap where the reply was',
    );
  }

  /**
   * Appends a receipt to its chain under the chain's lock: reads the last link, signs the next, inserts it.
   * `tombstoneOf` computes a bulk tombstone's content inside the lock (undefined: nothing to write).
   */
  async #append(
    signer: AgentSigner,
    channelId: string,
    entry: Entry,
    tombstoneOf?: TombstoneOf,
  ): Promise<Receipt | undefined> {
    if (!this.#options.exclusive) return this.#appendLocked(signer, channelId, entry, tombstoneOf);
    const chain = `${signer.registration.agentId}:${channelId}`;
    return this.#chains.run(chain, async () => {
      if (entry.kind === 'reply' && !tombstoneOf)
        return this.#appendOwn(chain, signer, channelId, entry);
      const receipt = await this.#appendLocked(signer, channelId, entry, tombstoneOf);
      if (receipt) this.#heads.set(chain, { seq: receipt.body.seq, hash: receipt.hash });
      return receipt;
    });
  }

  /** The body of the next receipt of a chain whose last link is `head`. */
  #bodyOf(
    signer: AgentSigner,
    channelId: string,
    entry: Entry,
    head: { seq: number; hash: string } | undefined,
    tombstone: ReceiptTombstone | undefined,
  ): ReceiptBody {
    const { registration } = signer;
    return {
      v: 1,
      kind: entry.kind,
      id: entry.id,
      seq: (head?.seq ?? 0) + 1,
      prev: head?.hash ?? null,
      channelId,
      messageId: entry.messageId,
      time: new Date((this.#options.clock ?? Date.now)()).toISOString(),
      simulator: signer.simulator,
      agent: {
        agentId: registration.agentId,
        agentName: registration.agentName,
        publicKey: registration.publicKey,
        createdAt: registration.createdAt,
      },
      ...(entry.reply && { reply: entry.reply }),
      ...(tombstone && { tombstone }),
    };
  }

  /**
   * Appends a reply's receipt when this process is the only writer, inside its chain's turn: the head is
   * remembered, so this is one INSERT (and one more the first time a registration signs).
   */
  async #appendOwn(
    chain: string,
    signer: AgentSigner,
    channelId: string,
    entry: Entry,
  ): Promise<Receipt | undefined> {
    const agentId = signer.registration.agentId;
    let head = this.#heads.get(chain);
    if (!head) {
      const last = await storageCall('receipt', () => chainHead(this.#db, agentId, channelId));
      head = last && { seq: last.seq, hash: last.hash };
    }
    const signed = signer.sign(this.#bodyOf(signer, channelId, entry, head, undefined));
    const attestation = registrationDigest(signer.registration);
    if (!this.#storedAttestations.has(attestation)) {
      await storageCall('receipt', () =>
        this.#db
          .insertInto('receipt_attestations')
          .values({ digest: attestation, registration: JSON.stringify(signer.registration) })
          .onConflict((conflict) => conflict.column('digest').doNothing())
          .execute(),
      );
      this.#storedAttestations.add(attestation);
    }
    const { body } = signed;
    const inserted = await storageCall('receipt', () =>
      sql<{ position: string }>`
        INSERT INTO receipts (id, channel_id, agent_id, seq, kind, message_id, hash, receipt, attestation)
        VALUES (${body.id}::uuid, ${channelId}::uuid, ${agentId}::uuid, ${body.seq}, ${body.kind},
                ${body.messageId}::uuid, ${signed.hash}, ${JSON.stringify(signed)}, ${attestation})
        ON CONFLICT (message_id) WHERE kind = 'reply' DO NOTHING
        RETURNING position`.execute(this.#db),
    );
    if (inserted.rows.length === 0) {
      // Recorded before (the same reply read again): that receipt stands, the head does not move.
      const existing = await storageCall('receipt', () =>
        this.#db
          .selectFrom('receipts')
          .select('receipt')
          .where('message_id', '=', body.messageId)
          .where('kind', '=', 'reply')
          .executeTakeFirstOrThrow(),
      );
      return receiptSchema.parse(JSON.parse(existing.receipt));
    }
    this.#heads.set(chain, { seq: body.seq, hash: signed.hash });
    await this.#options.sync();
    return signed;
  }

  /** Appends under the chain's advisory lock in one transaction: any number of processes may write. */
  async #appendLocked(
    signer: AgentSigner,
    channelId: string,
    entry: Entry,
    tombstoneOf?: TombstoneOf,
  ): Promise<Receipt | undefined> {
    const { registration } = signer;
    const agentId = registration.agentId;
    const attestation = registrationDigest(registration);
    const receipt = await storageCall('receipt', () =>
      this.#db.transaction().execute(async (trx) => {
        await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`parley.receipts:${agentId}:${channelId}`}, 0))`.execute(
          trx,
        );
        if (entry.kind === 'reply' && entry.messageId) {
          const existing = await trx
            .selectFrom('receipts')
            .select('receipt')
            .where('message_id', '=', entry.messageId)
            .where('kind', '=', 'reply')
            .executeTakeFirst();
          if (existing) return receiptSchema.parse(JSON.parse(existing.receipt));
        }
        const tombstone = tombstoneOf ? await tombstoneOf(trx) : entry.tombstone;
        if (tombstoneOf && !tombstone) return undefined;
        const last = await chainHead(trx, agentId, channelId);
        const body = this.#bodyOf(signer, channelId, entry, last, tombstone);
        const signed = signer.sign(body);
        await trx
          .insertInto('receipt_attestations')
          .values({ digest: attestation, registration: JSON.stringify(registration) })
          .onConflict((conflict) => conflict.column('digest').doNothing())
          .execute();
        await trx
          .insertInto('receipts')
          .values({
            id: body.id,
            channel_id: channelId,
            agent_id: agentId,
            seq: body.seq,
            kind: body.kind,
            message_id: body.messageId,
            hash: signed.hash,
            receipt: JSON.stringify(signed),
            attestation,
          })
          .execute();
        return signed;
      }),
    );
    await this.#options.sync();
    return receipt;
  }

  /** The event log the TEE serves (which app runs), or undefined when it serves none or is unavailable. */
  async #eventLog() {
    try {
      return (await this.#options.tee.listAgents()).eventLog;
    } catch {
      return undefined;
    }
  }

  /**
   * The receipt of a stored reply, with the registration that vouches for its key and the TEE's event log.
   * @throws ParleyError `NOT_FOUND` when the reply has no receipt (yet, or receipts are off).
   */
  async forMessage(messageId: string): Promise<ReceiptBundle> {
    const row = await storageCall('receipt', () =>
      this.#db
        .selectFrom('receipts')
        .innerJoin('receipt_attestations', 'receipt_attestations.digest', 'receipts.attestation')
        .select(['receipts.receipt', 'receipt_attestations.registration'])
        .where('receipts.message_id', '=', messageId)
        .where('receipts.kind', '=', 'reply')
        .executeTakeFirst(),
    );
    if (!row) throw new ParleyError('NOT_FOUND', `No receipt for message ${messageId}`);
    const eventLog = await this.#eventLog();
    return {
      receipt: receiptSchema.parse(JSON.parse(row.receipt)),
      attestation: teeAgentSchema.parse(JSON.parse(row.registration)),
      ...(eventLog && { eventLog }),
    };
  }

  /** A page of a channel's receipts in append order (every chain of the channel), after the cursor. */
  async page(channelId: string, after: string | undefined, limit: number): Promise<ReceiptPage> {
    const rows = await storageCall('receipt', () => {
      let query = this.#db
        .selectFrom('receipts')
        .select(['position', 'receipt', 'attestation'])
        .where('channel_id', '=', channelId)
        .orderBy('position')
        .limit(limit + 1);
      if (after !== undefined) query = query.where('position', '>', after);
      return query.execute();
    });
    const page = rows.slice(0, limit);
    const digests = [...new Set(page.map((row) => row.attestation))];
    const registrations =
      digests.length === 0
        ? []
        : await storageCall('receipt', () =>
            this.#db
              .selectFrom('receipt_attestations')
              .select('registration')
              .where('digest', 'in', digests)
              .execute(),
          );
    const eventLog = page.length > 0 ? await this.#eventLog() : undefined;
    return {
      receipts: page.map((row) => receiptSchema.parse(JSON.parse(row.receipt))),
      attestations: registrations.map((row) => teeAgentSchema.parse(JSON.parse(row.registration))),
      ...(eventLog && { eventLog }),
      nextCursor: rows.length > limit ? String(page.at(-1)!.position) : null,
    };
  }
}
