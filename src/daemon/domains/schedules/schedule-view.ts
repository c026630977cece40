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

/**
 * What a schedule's entity tag covers: the view without its fire state (`next_fire_at` and the `last_*`
 * fields, which every fire moves) and without what is not the schedule's own (`flow_name`, the flow's;
 * `cron_description`, the library's wording of `cron`). A fire or a flow's rename is no edit of the
 * schedule, so a form read before one may still save over it.
 */
export function scheduleVersion(schedule: Schedule): Partial<Schedule> {
  const {
    next_fire_at: _next,
    last_fired_at: _fired,
    last_run_id: _run,
    last_fire_error: _error,
    flow_name: _flow,
    cron_description: _description,
    ...settings
  } = schedule;
  return settings;
}

/** The version of the schedule as locked: the flow's name, not in the version, needs no join. */
export function lockedScheduleVersion(row: ScheduleRow): Partial<Schedule> {
  return scheduleVersion(scheduleView({ ...row, flow_name: null }));
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
