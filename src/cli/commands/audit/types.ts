import type { AuditLogEntry, AuditLogPage } from '../../../shared/api/audit-logs.js';
import type { Column } from '../../runtime/table.js';

/** The audit routes' wire shapes, inferred from the schemas the daemon answers with (types only: no zod at run time). */
export type { AuditLogEntry, AuditLogPage };

const resource = (e: AuditLogEntry) => (e.resource_type === null ? null : `${e.resource_type}/${e.resource_id ?? '-'}`);
const actor = (e: AuditLogEntry) => e.actor_username ?? e.actor_sub;

export const AUDIT_COLUMNS: Column<AuditLogEntry>[] = [
  { header: 'TIME', value: (e) => e.ts },
  { header: 'EVENT', value: (e) => e.event_type },
  { header: 'ACTOR', value: actor },
  { header: 'RESOURCE', value: resource },
  { header: 'OUTCOME', value: (e) => e.outcome },
  { header: 'ID', value: (e) => e.id },
];

/** One entry as `field: value` lines, its details as JSON on the last. */
export const auditFields = (e: AuditLogEntry) =>
  [
    ['id', e.id],
    ['time', e.ts],
    ['event', e.event_type],
    ['action', e.action],
    ['outcome', e.outcome],
    ['actor', e.actor_sub === null ? null : `${e.actor_username ?? '?'} (${e.actor_sub})`],
    ['resource', resource(e)],
    ['org_id', e.org_id],
    ['client_ip', e.client_ip],
    ['user_agent', e.user_agent],
    ['details', JSON.stringify(e.details)],
  ] as const;
