import type { InternalRun } from '../../../shared/api/run-callbacks.js';
import { iso, type RunStatus } from '../runs/run-view.js';

/** A `runs` row as the callbacks read it: the run's execution state beside what a worker needs of it. */
export interface InternalRunRow {
  readonly id: string;
  readonly org_id: string;
  readonly workflow_id: string;
  readonly name: string;
  readonly status: RunStatus;
  readonly flow_id: string | null;
  readonly flow_version: number;
  readonly created_by: string | null;
  readonly worker_id: string | null;
  readonly attempt: number;
  readonly lease_expires_at: Date | string | null;
  readonly params_json: Record<string, unknown>;
  readonly targets_json: Record<string, string[]>;
  readonly run_vars_json: Record<string, unknown>;
  readonly outputs_json: Record<string, unknown>;
  readonly error_json: Record<string, unknown> | null;
  readonly parent_run_id: string | null;
  readonly parent_step_id: string | null;
  readonly shared_worker_id: string | null;
  /** bigint: pg answers it as text. */
  readonly event_seq: string | number;
  readonly started_at: Date | string | null;
  readonly finished_at: Date | string | null;
}

export const INTERNAL_RUN_COLUMNS = [
  'id',
  'org_id',
  'workflow_id',
  'name',
  'status',
  'flow_id',
  'flow_version',
  'created_by',
  'worker_id',
  'attempt',
  'lease_expires_at',
  'params_json',
  'targets_json',
  'run_vars_json',
  'outputs_json',
  'error_json',
  'parent_run_id',
  'parent_step_id',
  'shared_worker_id',
  'event_seq',
  'started_at',
  'finished_at',
] as const;

export function internalRunView(row: InternalRunRow): InternalRun {
  return {
    id: row.id,
    org_id: row.org_id,
    workflow_id: row.workflow_id,
    name: row.name,
    status: row.status,
    flow_id: row.flow_id,
    flow_version: row.flow_version,
    worker_id: row.worker_id,
    attempt: row.attempt,
    lease_expires_at: iso(row.lease_expires_at),
    params: row.params_json,
    targets: row.targets_json,
    run_vars: row.run_vars_json,
    outputs: row.outputs_json,
    error: row.error_json,
    parent_run_id: row.parent_run_id,
    parent_step_id: row.parent_step_id,
    shared_worker_id: row.shared_worker_id,
    event_seq: Number(row.event_seq),
    started_at: iso(row.started_at),
    finished_at: iso(row.finished_at),
  };
}
