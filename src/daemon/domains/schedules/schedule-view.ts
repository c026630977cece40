import type { Schedule } from '../../../shared/api/schedules.js';
import { iso } from '../runs/run-view.js';
import { describeCron } from './cron.js';
import type { ScheduleRow, ScheduleWithFlow } from './schedules-repo.js';

/** A schedule on the wire. */
export function scheduleView(row: ScheduleWithFlow): Schedule {
  return {
    id: row.id,
    org_id: row.org_id,
    name: row.name,
    description: row.description,
    flow_id: row.flow_id,
    flow_name: row.flow_name,
    flow_version: row.flow_version,
    cron: row.cron,
    cron_description: describeCron(row.cron),
    timezone: row.timezone,
    params: row.params_json ?? {},
    targets: row.targets_json ?? {},
    enabled: row.enabled,
    misfire_policy: row.misfire_policy,
    next_fire_at: iso(row.next_fire_at),
    last_fired_at: iso(row.last_fired_at),
    last_run_id: row.last_run_id,
    last_fire_error: row.last_fire_error_json,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    created_by: row.created_by,
    updated_by: row.updated_by,
    deleted_at: iso(row.deleted_at),
    deleted_by: row.deleted_by,
  };
}

/** What an audit entry keeps of a schedule: its configuration, not its fire state. */
export function scheduleAuditView(row: ScheduleRow): Record<string, unknown> {
  return {
    name: row.name,
    flow_id: row.flow_id,
    flow_version: row.flow_version,
    cron: row.cron,
    timezone: row.timezone,
    params: row.params_json,
    targets: row.targets_json,
    enabled: row.enabled,
    misfire_policy: row.misfire_policy,
  };
}
