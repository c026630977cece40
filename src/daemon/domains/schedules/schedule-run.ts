import type { AuditContext } from '../../audit/audit-context.js';
import type { AdmissionRequest } from '../runs/run-admission.js';
import type { ScheduleRow } from './schedules-repo.js';

/**
 * The run a schedule starts, as admission takes it (a fire's and `POST /schedules/{id}/run`'s alike): its
 * flow, version, params and targets, named after it, `trigger_details` naming it and what `trigger` adds.
 */
export function scheduleRunRequest(
  row: ScheduleRow,
  trigger: Record<string, unknown>,
  context: AuditContext | undefined,
): AdmissionRequest {
  return {
    orgId: row.org_id,
    flowId: row.flow_id ?? '',
    version: row.flow_version,
    params: row.params_json,
    targets: row.targets_json,
    trigger: { source: 'schedule', details: { schedule_id: row.id, schedule_name: row.name, ...trigger } },
    name: row.name,
    ...(context ? { audit: context } : {}),
  };
}
