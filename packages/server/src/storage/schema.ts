import type { AuditTables } from '../audit/audit-migration';
import type { TokenUsageTables } from '../guards/token-usage-table';
import type { SummaryTables } from '../memory/summary/summary-tables';
import type { ChannelMemberTables } from './channel-member-migration';
import type { MemoryTables } from '../memory/memory-tables';
import type { WebhookTables } from './webhook-tables';
import type { ColumnType, Generated } from 'kysely';

/** `channels`: one row per channel (room), created on first use. */
export interface ChannelTable {
  id: string;
  server_id: string;
  /** The agent that answers in this channel by default. */
  agent_id: string | null;
  created_at: ColumnType<Date, Date | string, never>;
  /** Null for a channel created on first use and never named (the API derives a name from its id). */
  name: ColumnType<string | null, string | null | undefined, string | null>;
  type: ColumnType<'GROUP' | 'DM', 'GROUP' | 'DM' | undefined, 'GROUP' | 'DM'>;
  topic: ColumnType<string | null, string | null | undefined, string | null>;
  metadata: ColumnType<Record<string, unknown>, string | undefined, string>;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
  /** When its newest message was stored (written with each batch of messages); null without messages. */
  last_message_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

/** `channel_participants`: who is in a channel: people (`member`) and agents (`agent`). */
export interface ChannelParticipantTable {
  channel_id: string;
  participant_id: string;
  role: 'member' | 'agent';
  joined_at: ColumnType<Date, Date | string | undefined, never>;
}

/** `messages`: every message of every channel. */
export interface MessageTable {
  id: string;
  /** Insertion order, to break ties between messages of the same millisecond. */
  seq: Generated<string>;
  channel_id: string;
  server_id: string;
  author_id: string;
  author_name: string;
  content: string;
  source_type: string;
  raw_message: ColumnType<unknown, string | null, never> | null;
  metadata: ColumnType<Record<string, unknown>, string, never>;
  in_reply_to: string | null;
  created_at: ColumnType<Date, Date | string, never>;
  /** The W3C trace context of what stored the message, handed to its webhook deliveries; never in the API. */
  trace_context?: ColumnType<unknown, string | null | undefined, never> | null;
}

/** `scheduled_messages`: messages to post at a future time, claimed by one process each. */
export interface ScheduledMessageTable {
  id: string;
  agent_id: string;
  channel_id: string;
  server_id: string;
  content: string;
  metadata: ColumnType<Record<string, unknown>, string, string>;
  send_at: ColumnType<Date, Date | string, Date | string>;
  status: 'pending' | 'sent' | 'failed';
  attempts: Generated<number>;
  claimed_by: string | null;
  claimed_until: ColumnType<Date, Date | string, Date | string> | null;
  message_id: string | null;
  last_error: string | null;
  created_at: ColumnType<Date, Date | string | undefined, never>;
}

/** `tee_agents`: each agent's TEE registration, so `createdAt` and the quote survive restarts. */
export interface TeeAgentTable {
  agent_id: string;
  id: string;
  agent_name: string;
  public_key: string;
  /** Milliseconds since the epoch; bigint comes back from the driver as a string. */
  created_at: ColumnType<string, number, number>;
  attestation: string;
}

/** `server_secrets`: secrets the server generates once and every process sharing the database reads. */
export interface ServerSecretTable {
  name: string;
  value: string;
  created_at: ColumnType<Date, Date | string | undefined, never>;
}

/**
 * `idempotency_keys`: one row per key in use (its id a keyed hash of endpoint, channel, client and key), with a
 * keyed hash of what it asked, the message it posted, and the reply that answers it. Removed after the window.
 */
export interface IdempotencyKeyTable {
  id: string;
  fingerprint: string;
  /** The message the request posted; null on rows from before 0015, whose message id is `id`. */
  message_id: string | null;
  /** The reply started for the request, by the process that claimed it first. */
  reply_id: string | null;
  reply_claimed_at: ColumnType<Date, Date | string, Date | string> | null;
  /** The process producing the reply (a random id per process). */
  reply_owner: string | null;
  /** Until when that process holds the reply (renewed while it runs); null once it ended. */
  reply_lease_until: ColumnType<Date, Date | string, Date | string> | null;
  created_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

/** `agent_components`: elizaOS components that agents' plugins store (`runtime.createComponent`), per agent. */
export interface AgentComponentTable {
  id: string;
  agent_id: string;
  entity_id: string;
  type: string;
  world_id: string | null;
  room_id: string | null;
  source_entity_id: string | null;
  data: ColumnType<Record<string, unknown>, string, string>;
  created_at: ColumnType<Date, Date, Date>;
}

/**
 * `paused_replies`: a reply that waits for approvals (`waiting`), is being continued by one process until
 * `lease_until` (`running`), or ended after a pause (`ended`, its final part last in `parts`).
 */
export interface PausedReplyTable {
  reply_id: string;
  channel_id: string;
  agent_id: string;
  in_reply_to: string;
  status: 'waiting' | 'running' | 'ended';
  /** The reply's parts so far, as its stream had them. */
  parts: ColumnType<unknown[], string, string>;
  /** The agent loop's state at the pause (null once ended). */
  progress: ColumnType<Record<string, unknown> | null, string | null, string | null>;
  expires_at: ColumnType<Date, Date | string, Date | string>;
  lease_until: ColumnType<Date | null, Date | string | null, Date | string | null>;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
  /** The W3C trace context (`traceparent`, `tracestate`) of what paused it; null without tracing. */
  trace_context: ColumnType<
    Record<string, string> | null,
    string | null | undefined,
    string | null
  >;
}

/** `approval_requests`: each call of a paused reply that needs a decision, and the decision once taken. */
export interface ApprovalRequestTable {
  reply_id: string;
  tool_call_id: string;
  tool_name: string;
  /** `approved`, `denied`, `expired`; null while waiting. */
  decision: string | null;
  reason: string | null;
  decided_at: ColumnType<Date | null, Date | string | null, Date | string | null>;
  /** When an approved call's handler started (written before it runs); null: not started. */
  started_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

/** `managed_agents`: agents created at run time (`character` set) and the state of configured ones (null). */
export interface ManagedAgentTable {
  id: string;
  character: ColumnType<Record<string, unknown> | null, string | null, string | null>;
  enabled: ColumnType<boolean, boolean | undefined, boolean>;
  /** Raised by every change: how other processes tell what changed. */
  version: ColumnType<number, number | undefined, number>;
  created_at: ColumnType<Date, Date | string | undefined, never>;
  updated_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

/** `sessions`: elizaOS sessions, a user and an agent in a channel of their own. */
export interface SessionTable {
  id: string;
  agent_id: string;
  user_id: string;
  channel_id: string;
  metadata: ColumnType<Record<string, unknown>, string | undefined, string>;
  created_at: ColumnType<Date, Date | string | undefined, never>;
  last_activity: ColumnType<Date, Date | string | undefined, Date | string>;
}

/** `attachments`: files uploaded to a channel, with their bytes. */
export interface AttachmentTable {
  id: string;
  channel_id: string;
  name: string;
  content_type: string;
  size: number;
  data: Uint8Array;
  uploaded_by: string | null;
  created_at: ColumnType<Date, Date | string | undefined, never>;
}

/** The whole database, as Kysely sees it. */
export interface DatabaseSchema
  extends
    WebhookTables,
    SummaryTables,
    MemoryTables,
    ChannelMemberTables,
    AuditTables,
    TokenUsageTables {
  server_secrets: ServerSecretTable;
  idempotency_keys: IdempotencyKeyTable;
  channels: ChannelTable;
  channel_participants: ChannelParticipantTable;
  messages: MessageTable;
  scheduled_messages: ScheduledMessageTable;
  tee_agents: TeeAgentTable;
  agent_components: AgentComponentTable;
  paused_replies: PausedReplyTable;
  approval_requests: ApprovalRequestTable;
  managed_agents: ManagedAgentTable;
  sessions: SessionTable;
  attachments: AttachmentTable;
}
