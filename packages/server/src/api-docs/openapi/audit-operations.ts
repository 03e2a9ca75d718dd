import { apiSuccessSchema, auditPageSchema, auditQuerySchema } from '@parley/core';
import type { DocumentedOperation } from './built-in-operations';

/** The audit log (`audit/audit-routes.ts`): read-only, admins only. */
export const AUDIT_OPERATIONS: readonly DocumentedOperation[] = [
  {
    method: 'get',
    path: '/api/audit',
    operationId: 'listAuditEntries',
    summary: 'The audit log of admin actions, newest first',
    description:
      'Admins only (the operator token or a person with the admin role; anyone else 403). One row per admin ' +
      'action that succeeded (agents created, changed, started, stopped, deleted; knowledge and memories ' +
      'deleted; webhooks; approval decisions; channels deleted by an admin): who (`actor.kind` operator, ' +
      'person, plugin or system, with the entity id), what (`action`, `target`, a small `detail`) and when ' +
      "(`at`, `seq`). Pages go back in time: pass the previous page's `nextBefore` as `before` (null on the " +
      'last page). Filters: `action` (e.g. `agent.delete`), `actor` (a kind or an entity id), `target`, `since` ' +
      '(ISO 8601). The log is append-only: no route changes or deletes its rows.',
    tag: 'audit',
    auth: ['apiKey'],
    query: auditQuerySchema,
    responses: {
      200: {
        description: 'One page of the audit log.',
        json: apiSuccessSchema(auditPageSchema),
      },
    },
    errors: ['BAD_REQUEST', 'FORBIDDEN', 'UNAVAILABLE'],
  },
];
