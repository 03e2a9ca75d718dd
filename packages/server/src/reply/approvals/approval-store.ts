import { type Kysely, sql } from 'kysely';
import type { DatabaseSchema, PausedReplyTable } from '../../storage/schema';
import { storageCall } from '../../storage/to-storage-error';

/** A call waiting for a decision, as stored. */
export interface StoredApprovalRequest {
  toolCallId: string;
  toolName: string;
}

/** What a paused reply stores: enough for any process to continue it. */
export interface PauseRecord {
  replyId: string;
  channelId: string;
  agentId: string;
  inReplyTo: string;
  /** The reply's parts so far. */
  parts: readonly unknown[];
  /** The agent loop's state. */
  progress: Record<string, unknown>;
  expiresAt: Date;
  requests: readonly StoredApprovalRequest[];
  /** The W3C trace context of the span that paused it (`traceparent`…): its continuation joins that trace. */
  traceContext?: Record<string, string> | null;
}

/** A paused reply as read back. */
export interface PausedReply {
  replyId: string;
  channelId: string;
  agentId: string;
  inReplyTo: string;
  status: PausedReplyTable['status'];
  parts: unknown[];
  progress: Record<string, unknown> | null;
  expiresAt: Date;
  /** The trace context stored with the pause, if any. */
  traceContext: Record<string, string> | null;
}

/** A paused reply claimed to go on, with its calls' decisions. */
export interface ClaimedReply extends PausedReply {
  decisions: StoredDecision[];
}

/** A decision this process took: the reply's channel, and the reply when the decision claimed it. */
export interface TakenDecision {
  channelId: string;
  claimed?: ClaimedReply;
}

/** A decision as the continuation reads it. */
export type Decision = 'approved' | 'denied' | 'expired';

/** One call's decision, by its id. */
export interface StoredDecision {
  toolCallId: string;
  toolName: string;
  decision: Decision;
  reason: string | null;
}

/** Where a call's request stands, for the answer to a decision that was not taken. */
export interface RequestState {
  channelId: string;
  decided: boolean;
  /** The reply no longer waits: it expired, or it was continued. */
  closed: boolean;
}

/** The decisions of a claimed reply's requests, as JSON, in a claim's `RETURNING`. */
const decisionsOf = sql`(SELECT coalesce(json_agg(json_build_object('toolCallId', r.tool_call_id,
    'toolName', r.tool_name, 'decision', r.decision, 'reason', r.reason)), '[]'::json)
  FROM approval_requests r WHERE r.reply_id = paused_replies.reply_id) AS decisions`;

/** The columns of a paused reply that ended with `parts` (its final one last). */
const endedWith = (parts: readonly unknown[]) => ({
  status: 'ended' as const,
  parts: JSON.stringify(parts),
  progress: null,
  updated_at: new Date(),
});

/**
 * Paused replies and their approval requests (`paused_replies`, `approval_requests`). Every change that more
 * than one process may attempt at once is one conditional statement: a decision is taken once, a continuation
 * is claimed by one process, under any number of concurrent attempts.
 */
export class ApprovalStore {
  readonly #db: Kysely<DatabaseSchema>;
  readonly #sync: () => Promise<void>;

  constructor(db: Kysely<DatabaseSchema>, sync: () => Promise<void> = () => Promise.resolve()) {
    this.#db = db;
    this.#sync = sync;
  }

  /**
   * Stores a pause (a reply pausing again replaces its earlier state and requests), in one statement: the
   * paused reply, its earlier requests removed and its new ones written. A call id is never used twice in a
   * reply, but a request of the same id would be reset to undecided rather than fail.
   */
  async pause(record: PauseRecord): Promise<void> {
    const ids = record.requests.map((request) => request.toolCallId);
    const names = record.requests.map((request) => request.toolName);
    const trace = record.traceContext ? JSON.stringify(record.traceContext) : null;
    await storageCall('paused reply', () =>
      sql`WITH paused AS (
            INSERT INTO paused_replies (reply_id, channel_id, agent_id, in_reply_to, status, parts, progress,
              expires_at, lease_until, updated_at, trace_context)
            VALUES (${record.replyId}::uuid, ${record.channelId}::uuid, ${record.agentId}::uuid,
              ${record.inReplyTo}::uuid, 'waiting', ${JSON.stringify(record.parts)}::jsonb,
              ${JSON.stringify(record.progress)}::jsonb, ${record.expiresAt}::timestamptz, NULL, now(),
              ${trace}::jsonb)
            ON CONFLICT (reply_id) DO UPDATE SET status = 'waiting', parts = EXCLUDED.parts,
              progress = EXCLUDED.progress, expires_at = EXCLUDED.expires_at, lease_until = NULL,
              updated_at = EXCLUDED.updated_at, trace_context = EXCLUDED.trace_context
            RETURNING reply_id),
          earlier AS (
            DELETE FROM approval_requests
            WHERE reply_id = ${record.replyId}::uuid AND tool_call_id <> ALL(${ids}::text[]))
          INSERT INTO approval_requests (reply_id, tool_call_id, tool_name)
          SELECT paused.reply_id, request.id, request.name
          FROM paused, unnest(${ids}::text[], ${names}::text[]) AS request (id, name)
          ON CONFLICT (reply_id, tool_call_id) DO UPDATE SET tool_name = EXCLUDED.tool_name,
            decision = NULL, reason = NULL, decided_at = NULL, decided_by = NULL, started_at = NULL`.execute(
        this.#db,
      ),
    );
    await this.#sync();
  }

  /** The paused reply `replyId` (waiting, running or ended), if there is one. */
  async get(replyId: string): Promise<PausedReply | undefined> {
    const row = await storageCall('paused reply', () =>
      this.#db
        .selectFrom('paused_replies')
        .selectAll()
        .where('reply_id', '=', replyId)
        .executeTakeFirst(),
    );
    return row && toPausedReply(row);
  }

  /** Where the request of `toolCallId` in `replyId` stands; undefined when there is no such request. */
  async requestState(replyId: string, toolCallId: string): Promise<RequestState | undefined> {
    const row = await storageCall('approval request', () =>
      this.#db
        .selectFrom('approval_requests as r')
        .innerJoin('paused_replies as p', 'p.reply_id', 'r.reply_id')
        .select(['p.channel_id', 'p.status', 'p.expires_at', 'r.decision'])
        .where('r.reply_id', '=', replyId)
        .where('r.tool_call_id', '=', toolCallId)
        .executeTakeFirst(),
    );
    if (!row) return undefined;
    return {
      channelId: row.channel_id,
      decided: row.decision !== null,
      closed: row.status !== 'waiting' || new Date(row.expires_at).getTime() <= Date.now(),
    };
  }

  /**
   * Takes a decision unless one was taken or the reply no longer waits (or, with `channelId`, is of another
   * channel); undefined when this call did not take it ({@link requestState} tells why). With `claimLeaseMs`,
   * the same statement claims the reply for that long when this decision was the last it waited for (as
   * {@link claimReady} would), and returns it with its decisions. A reply whose other requests were decided at
   * the same moment, in other transactions, may not be claimed here: {@link claimReady} finds it.
   */
  async decide(
    replyId: string,
    toolCallId: string,
    decision: 'approved' | 'denied',
    reason: string | undefined,
    decidedBy?: string,
    options: { channelId?: string; claimLeaseMs?: number } = {},
  ): Promise<TakenDecision | undefined> {
    const { channelId, claimLeaseMs } = options;
    const inChannel = channelId === undefined ? sql`` : sql`AND p.channel_id = ${channelId}::uuid`;
    const { rows } = await storageCall('approval decision', () =>
      sql<PausedReplyRow & { decided_in: string; decisions: unknown }>`WITH decided AS (
            UPDATE approval_requests r
            SET decision = ${decision}, reason = ${reason ?? null}, decided_at = now(),
                decided_by = ${decidedBy ?? null}
            FROM paused_replies p
            WHERE r.reply_id = ${replyId}::uuid AND r.tool_call_id = ${toolCallId}
              AND r.decision IS NULL AND p.reply_id = r.reply_id
              AND p.status = 'waiting' AND p.expires_at > now() ${inChannel}
            RETURNING r.reply_id, p.channel_id),
          claimed AS (
            UPDATE paused_replies SET status = 'running',
              lease_until = now() + make_interval(secs => ${(claimLeaseMs ?? 0) / 1000}), updated_at = now()
            WHERE ${claimLeaseMs !== undefined}::boolean AND status = 'waiting'
              AND reply_id IN (SELECT reply_id FROM decided)
              AND NOT EXISTS (SELECT 1 FROM approval_requests r
                WHERE r.reply_id = paused_replies.reply_id AND r.decision IS NULL
                  AND r.tool_call_id <> ${toolCallId})
            RETURNING *, ${decisionsOf})
          SELECT decided.channel_id AS decided_in, claimed.*
          FROM decided LEFT JOIN claimed ON true`.execute(this.#db),
    );
    const row = rows[0];
    if (!row) return undefined;
    await this.#sync();
    if (row.reply_id === null || row.reply_id === undefined) return { channelId: row.decided_in };
    // The statement read the decisions as they were before it: this one is set here.
    const decisions = toDecisions(row.decisions).map((each) =>
      each.toolCallId === toolCallId ? { ...each, decision, reason: reason ?? null } : each,
    );
    return { channelId: row.decided_in, claimed: { ...toPausedReply(row), decisions } };
  }

  /** One cheap look for a sweep: are any replies open (waiting or running), and any ended long enough ago? */
  async sweepNeeds(endedKeptMs: number): Promise<{ open: boolean; stale: boolean }> {
    const { rows } = await storageCall('paused reply sweep', () =>
      sql<{ open: boolean; stale: boolean }>`SELECT
            EXISTS (SELECT 1 FROM paused_replies WHERE status <> 'ended') AS open,
            EXISTS (SELECT 1 FROM paused_replies WHERE status = 'ended'
                    AND updated_at < now() - make_interval(secs => ${endedKeptMs / 1000})) AS stale`.execute(
        this.#db,
      ),
    );
    return { open: rows[0]?.open === true, stale: rows[0]?.stale === true };
  }

  /** Marks every undecided request of a reply that waited past its expiry as expired; how many replies. */
  async expireDue(): Promise<number> {
    const result = await storageCall('approval expiry', () =>
      sql`UPDATE approval_requests SET decision = 'expired', decided_at = now()
          WHERE decision IS NULL AND reply_id IN (
            SELECT reply_id FROM paused_replies WHERE status = 'waiting' AND expires_at <= now())`.execute(
        this.#db,
      ),
    );
    return Number(result.numAffectedRows ?? 0);
  }

  /**
   * Claims up to `limit` replies ready to go on (every request decided, or a continuation whose process let its
   * lease lapse), `replyId` alone when given, for `leaseMs`. Each reply is claimed by one caller only, and comes
   * with its decisions (read in the same statement).
   */
  async claimReady(leaseMs: number, limit: number, replyId?: string): Promise<ClaimedReply[]> {
    const only = replyId === undefined ? sql`` : sql`AND p.reply_id = ${replyId}::uuid`;
    const { rows } = await storageCall('paused reply claim', () =>
      sql<PausedReplyRow & { decisions: unknown }>`UPDATE paused_replies SET status = 'running',
            lease_until = now() + make_interval(secs => ${leaseMs / 1000}), updated_at = now()
          WHERE reply_id IN (
            SELECT p.reply_id FROM paused_replies p
            WHERE ((p.status = 'waiting' AND NOT EXISTS (
                     SELECT 1 FROM approval_requests r
                     WHERE r.reply_id = p.reply_id AND r.decision IS NULL))
                   OR (p.status = 'running' AND p.lease_until < now())) ${only}
            ORDER BY p.updated_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
          RETURNING *, ${decisionsOf}`.execute(this.#db),
    );
    // Not synced: a claim lost with the machine leaves a reply that any sweep claims again, and the first
    // write of the continuation that matters (an approved call's start, its end) syncs the log up to it.
    return rows.map((row) => ({ ...toPausedReply(row), decisions: toDecisions(row.decisions) }));
  }

  /** Extends the lease of a continuation this process runs. */
  async renew(replyId: string, leaseMs: number): Promise<void> {
    await storageCall('paused reply lease', () =>
      sql`UPDATE paused_replies
          SET lease_until = now() + make_interval(secs => ${leaseMs / 1000})
          WHERE reply_id = ${replyId}::uuid AND status = 'running'`.execute(this.#db),
    );
  }

  /**
   * Records, durably, that an approved call's handler is about to run; false when it had started already (a
   * continuation of a process that died after starting it). Called before the handler runs, never after.
   */
  async markStarted(replyId: string, toolCallId: string): Promise<boolean> {
    const result = await storageCall('approval start', () =>
      sql`UPDATE approval_requests SET started_at = now()
          WHERE reply_id = ${replyId}::uuid AND tool_call_id = ${toolCallId}
            AND started_at IS NULL`.execute(this.#db),
    );
    const first = Number(result.numAffectedRows ?? 0) === 1;
    // On the embedded database, the mark must outlive a crash before the handler runs.
    if (first) await this.#sync();
    return first;
  }

  /** The decisions of a reply's requests. */
  async decisions(replyId: string): Promise<StoredDecision[]> {
    const rows = await storageCall('approval decisions', () =>
      this.#db
        .selectFrom('approval_requests')
        .select(['tool_call_id', 'tool_name', 'decision', 'reason'])
        .where('reply_id', '=', replyId)
        .execute(),
    );
    return toDecisions(
      rows.map((row) => ({
        toolCallId: row.tool_call_id,
        toolName: row.tool_name,
        decision: row.decision,
        reason: row.reason,
      })),
    );
  }

  /** Records that a continued reply ended, with all its parts (its final one last). */
  async end(replyId: string, parts: readonly unknown[]): Promise<void> {
    await storageCall('paused reply', () =>
      this.#db
        .updateTable('paused_replies')
        .set({ ...endedWith(parts), lease_until: null })
        .where('reply_id', '=', replyId)
        .execute(),
    );
    await this.#sync();
  }

  /** Ends a reply that still waits (a cancel), with its parts; whether it waited. */
  async endWaiting(replyId: string, parts: readonly unknown[]): Promise<boolean> {
    const result = await storageCall('paused reply', () =>
      this.#db
        .updateTable('paused_replies')
        .set(endedWith(parts))
        .where('reply_id', '=', replyId)
        .where('status', '=', 'waiting')
        .executeTakeFirst(),
    );
    const ended = Number(result.numUpdatedRows) === 1;
    if (ended) await this.#sync();
    return ended;
  }

  /** Removes up to `limit` replies that ended more than `olderThanMs` ago; how many. */
  async purgeEnded(olderThanMs: number, limit: number): Promise<number> {
    const result = await storageCall('paused reply purge', () =>
      sql`DELETE FROM paused_replies WHERE reply_id IN (
            SELECT reply_id FROM paused_replies
            WHERE status = 'ended' AND updated_at < now() - make_interval(secs => ${olderThanMs / 1000})
            LIMIT ${limit})`.execute(this.#db),
    );
    return Number(result.numAffectedRows ?? 0);
  }
}

type PausedReplyRow = {
  reply_id: string;
  channel_id: string;
  agent_id: string;
  in_reply_to: string;
  status: PausedReplyTable['status'];
  parts: unknown;
  progress: unknown;
  expires_at: Date | string;
  trace_context?: unknown;
};

function toPausedReply(row: PausedReplyRow): PausedReply {
  const json = (value: unknown): unknown => (typeof value === 'string' ? JSON.parse(value) : value);
  return {
    replyId: row.reply_id,
    channelId: row.channel_id,
    agentId: row.agent_id,
    inReplyTo: row.in_reply_to,
    status: row.status,
    parts: (json(row.parts) as unknown[]) ?? [],
    progress: (json(row.progress) as Record<string, unknown> | null) ?? null,
    expiresAt: new Date(row.expires_at),
    traceContext: (json(row.trace_context) as Record<string, string> | null) ?? null,
  };
}

/** Decisions as stored (JSON from a claim, or rows): an undecided one reads as expired. */
function toDecisions(value: unknown): StoredDecision[] {
  const rows = (typeof value === 'string' ? JSON.parse(value) : (value ?? [])) as {
    toolCallId: string;
    toolName: string;
    decision: string | null;
    reason: string | null;
  }[];
  return rows.map((row) => ({
    toolCallId: row.toolCallId,
    toolName: row.toolName,
    decision: (row.decision ?? 'expired') as Decision,
    reason: row.reason,
  }));
}
