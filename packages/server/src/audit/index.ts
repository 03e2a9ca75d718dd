export { AuditLog, AUDIT_DETAIL_MAX_CHARS, boundedDetail, type AuditRecord } from './audit-log';
export { AuditStore, type AuditEntry, type AuditQuery } from './audit-store';
export { auditActions } from './audit-middleware';
export { auditRoutes, AUDIT_PATH } from './audit-routes';
export { withAuditScope, actorOf } from './audit-context';
