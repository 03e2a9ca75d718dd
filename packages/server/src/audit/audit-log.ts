import type { Logger } from 'pino';
import { traceFields } from '../tracing/trace-context';
import { type AuditActor, actorOf, currentAuditScope } from './audit-context';
import type { AuditStore, NewAuditEntry } from './audit-store';

/** The largest `detail` stored, as JSON; a larger one is replaced by `{ truncated: true }`. */
export const AUDIT_DETAIL_MAX_CHARS = 2048;
const MAX_STRING = 200;
const MAX_KEYS = 20;
const MAX_ITEMS = 20;
/** Keys never kept in a detail, whatever a caller passes: the audit holds ids and names, not credentials. */
const SECRET_KEY = /secret|token|password|authorization|api[-_]?key|cookie/i;

type DetailValue = string | number | boolean | null | (string | number | boolean | null)[];

/** What one action tells the audit: its name, what it acted on, a few ids or names. */
export interface AuditRecord {
  /** `noun.verb`: `agent.create`, `webhook.delete`, `approval.decide`… */
  action: string;
  /** The id acted on (an agent, a webhook, a memory, a reply), when there is one. */
  target?: string | null;
  detail?: Record<string, unknown>;
  /** Who acted, when not the caller of the current request or socket event (see audit-context.ts). */
  actor?: AuditActor;
}

/**
 * The audit of admin actions: each action, once it succeeded, is appended to the `audit_log` table and told as
 * one log line (`{ audit: {...} }`, message `audit`) so log shippers get it too. Only ids, names and a small,
 * bounded detail are kept: never a token, a secret or a request body. Recording never fails the action that
 * already happened: a row that cannot be written is logged at error level with the same fields.
 */
export class AuditLog {
  readonly #store: AuditStore;
  readonly #logger: Logger;

  constructor(store: AuditStore, logger: Logger) {
    this.#store = store;
    this.#logger = logger;
  }

  get store(): AuditStore {
    return this.#store;
  }

  /** Records one action done by the current caller (none: the server itself, `system`). */
  async record(record: AuditRecord): Promise<void> {
    const scope = currentAuditScope();
    const actor: AuditActor =
      record.actor ??
      (scope ? actorOf(scope.identity()) : { kind: 'system', id: null, name: null });
    const entry: NewAuditEntry = {
      actor,
      action: record.action,
      target: record.target ?? null,
      detail: boundedDetail(record.detail ?? {}),
      requestId: scope?.requestId?.() ?? null,
      traceId: traceFields().trace_id ?? null,
    };
    try {
      const seq = await this.#store.append(entry);
      this.#logger.info({ audit: { seq, ...entry } }, 'audit');
    } catch (error) {
      this.#logger.error({ err: error, audit: entry }, 'audit entry not written');
    }
  }
}

/** A detail cut to what the audit keeps: flat ids, names, counts and flags, no secret-named keys, small. */
export function boundedDetail(detail: Record<string, unknown>): Record<string, DetailValue> {
  const kept: Record<string, DetailValue> = {};
  for (const [key, value] of Object.entries(detail).slice(0, MAX_KEYS)) {
    if (SECRET_KEY.test(key)) continue;
    const flat = flatValue(value);
    if (flat !== undefined) kept[key] = flat;
  }
  return JSON.stringify(kept).length > AUDIT_DETAIL_MAX_CHARS ? { truncated: true } : kept;
}

function flatValue(value: unknown): DetailValue | undefined {
  if (Array.isArray(value)) {
    const items = value.slice(0, MAX_ITEMS).map(scalar);
    return items.every((item) => item !== undefined) ? items : undefined;
  }
  return scalar(value);
}

function scalar(value: unknown): string | number | boolean | null | undefined {
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string')
    return value.length > MAX_STRING ? value.slice(0, MAX_STRING) : value;
  return undefined;
}
