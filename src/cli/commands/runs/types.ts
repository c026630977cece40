import type { Run } from '../../../shared/api/runs.js';
import type { RunStatus } from '../../../shared/run-statuses.js';
import type { Column, OffsetPage } from '../../runtime/table.js';

/** The run routes' wire shapes, inferred from the schemas the daemon answers with (types only: no zod at run time). */
export type { Run, RunStatus };

export type RunPage = OffsetPage<Run>;

export const RUN_COLUMNS: Column<Run>[] = [
  { header: 'ID', value: (r) => r.id },
  { header: 'NAME', value: (r) => r.name },
  { header: 'FLOW', value: (r) => r.flow_name },
  { header: 'VERSION', value: (r) => r.flow_version },
  { header: 'STATUS', value: (r) => r.status },
  { header: 'TRIGGER', value: (r) => r.trigger_source },
  { header: 'CREATED', value: (r) => r.created_at },
  { header: 'FINISHED', value: (r) => r.finished_at },
];

const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));

/** One run as `field: value` lines. */
export const runFields = (r: Run) =>
  [
    ['id', r.id],
    ['name', r.name],
    ['status', r.status],
    // A daemon older than these fields sends neither: nothing is shown rather than a crash.
    ...((r.error ?? null) === null ? [] : [['error', json(r.error)] as const]),
    ...(Object.keys(r.outputs ?? {}).length === 0 ? [] : [['outputs', json(r.outputs)] as const]),
    ['flow', `${r.flow_name} (${r.flow_id ?? 'purged'})`],
    ['flow_version', r.flow_version],
    ['params', json(r.params)],
    ['targets', json(r.targets)],
    ['trigger_source', r.trigger_source],
    ['workflow_id', r.workflow_id],
    ['created_by', r.created_by],
    ['created_at', r.created_at],
    ['started_at', r.started_at],
    ['paused_at', r.paused_at],
    ['finished_at', r.finished_at],
    ['cancelled_at', r.cancelled_at],
    ['cancelled_by', r.cancelled_by],
    ...(r.deleted_at === null ? [] : [['deleted_at', r.deleted_at] as const]),
  ] as const;
