import { z } from 'zod';
import { instantSchema } from './common';

/** Who did an audited action: the operator's token, a signed-in person, a plugin, or the server itself. */
export const auditActorKindSchema = z.enum(['operator', 'person', 'plugin', 'system']);

/** The most rows one page of `GET /api/audit` holds. */
export const AUDIT_PAGE_MAX = 200;

/**
 * `GET /api/audit`'s query: newest first; `before` is the `seq` below which the page starts (the previous page's
 * `nextBefore`); `actor` an actor kind or an entity id; `since` an ISO 8601 instant.
 */
export const auditQuerySchema = z.strictObject({
  before: z.coerce.number().int().min(1).optional(),
  limit: z.coerce.number().int().min(1).max(AUDIT_PAGE_MAX).default(50),
  action: z
    .string()
    .regex(/^[a-z][a-z0-9_.-]{0,63}$/, 'must be an action name such as agent.create')
    .optional(),
  actor: z.string().min(1).max(200).optional(),
  target: z.string().min(1).max(500).optional(),
  since: instantSchema.optional(),
});

/** One row of the audit log. */
export const auditEntrySchema = z.object({
  seq: z.number().int(),
  at: z.string(),
  actor: z.object({
    kind: auditActorKindSchema,
    id: z.string().nullable(),
    name: z.string().nullable(),
  }),
  action: z.string(),
  target: z.string().nullable(),
  detail: z.record(z.string(), z.unknown()),
  requestId: z.string().nullable(),
  traceId: z.string().nullable(),
});

/** A page of the audit log: `nextBefore` is the next page's `before`, null on the last page. */
export const auditPageSchema = z.object({
  entries: z.array(auditEntrySchema),
  nextBefore: z.number().int().nullable(),
});

export type AuditEntryPayload = z.infer<typeof auditEntrySchema>;
export type AuditPage = z.infer<typeof auditPageSchema>;
