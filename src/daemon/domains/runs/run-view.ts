import type { Run, TriggerSource } from '../../../shared/api/runs.js';
import type { RunStatus } from '../../../shared/run-statuses.js';

export type { RunStatus };

/** A `runs` row as the repository reads it. */
export interface RunRow {
  readonly id: string;
  readonly org_id: string;
  readonly flow_id: string | null;
  readonly flow_version: number;
  readonly flow_name: string;
  readonly name: string;
  readonly status: RunStatus;
  readonly params_json: Record<string, unknown>;
  readonly targets_json: Record<string, string[]>;
  readonly trigger_source: TriggerSource;
  readonly trigger_details_json: Record<string, unknown>;
  readonly workflow_id: string;
  readonly created_by: string | null;
  readonly updated_by: string | null;
  readonly created_at: Date | string;
  readonly updated_at: Date | string;
  readonly started_at: Date | string | null;
  /** The worker holding the run (its claim); null when none does, as after an approval sent it back to the queue. */
  readonly worker_id: string | null;
  readonly paused_at: Date | string | null;
  readonly finished_at: Date | string | null;
  readonly cancelled_at: Date | string | null;
  readonly cancelled_by: string | null;
  readonly deleted_at: Date | string | null;
  readonly deleted_by: string | null;
  readonly outputs_json: Record<string, unknown>;
  readonly error_json: Record<string, unknown> | null;
}

export const RUN_COLUMNS = [
  'id',
  'org_id',
  'flow_id',
  'flow_version',
  'flow_name',
  'name',
  'status',
  'params_json',
  'targets_json',
  'trigger_source',
  'trigger_details_json',
  'workflow_id',
  'created_by',
  'updated_by',
  'created_at',
  'updated_at',
  'started_at',
  'worker_id',
  'paused_at',
  'finished_at',
  'cancelled_at',
  'cancelled_by',
  'deleted_at',
  'deleted_by',
  'outputs_json',
  'error_json',
] as const;

/** A run on the wire (`GET /runs/{run_id}`, list items, and what admission answers): the shared `run` schema. */
export type RunView = Run;

/** A timestamp column as the wire writes it (ISO 8601, UTC); null stays null. */
export function iso(value: Date | string): string;
export function iso(value: Date | string | null): string | null;
export function iso(value: Date | string | null): string | null {
  return value === null ? null : new Date(value).toISOString();
}

export function runView(row: RunRow): RunView {
  return {
    id: row.id,
    org_id: row.org_id,
    name: row.name,
    flow_id: row.flow_id,
    flow_name: row.flow_name,
    flow_version: row.flow_version,
    status: row.status,
    params: row.params_json,
    targets: row.targets_json,
    trigger_source: row.trigger_source,
    trigger_details: row.trigger_details_json,
    workflow_id: row.workflow_id,
    created_by: row.created_by,
    updated_by: row.updated_by,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    started_at: iso(row.started_at),
    paused_at: iso(row.paused_at),
    finished_at: iso(row.finished_at),
    cancelled_at: iso(row.cancelled_at),
    cancelled_by: row.cancelled_by,
    deleted_at: iso(row.deleted_at),
    deleted_by: row.deleted_by,
    outputs: row.outputs_json,
    error: row.error_json,
  };
}
