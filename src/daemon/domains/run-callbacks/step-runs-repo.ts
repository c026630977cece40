import type { Knex } from 'knex';
import type { STEP_RUN_STATUSES } from '../../../shared/api/run-callbacks.js';

export type StepRunStatus = (typeof STEP_RUN_STATUSES)[number];

export interface StepRunRow {
  readonly id: string;
  readonly run_id: string;
  readonly attempt: number;
  readonly step_id: string;
  readonly handler: string;
  readonly status: StepRunStatus;
  readonly summary: string | null;
  readonly outputs_json: Record<string, unknown>;
  readonly error_json: Record<string, unknown> | null;
  readonly created_at: Date | string;
  readonly updated_at: Date | string;
  readonly started_at: Date | string | null;
  readonly finished_at: Date | string | null;
}

const COLUMNS = [
  'id',
  'run_id',
  'attempt',
  'step_id',
  'handler',
  'status',
  'summary',
  'outputs_json',
  'error_json',
  'created_at',
  'updated_at',
  'started_at',
  'finished_at',
] as const;

/** What a step run's move writes; timestamps follow from the status. */
export interface StepRunMove {
  readonly status: StepRunStatus;
  readonly summary?: string | undefined;
  readonly outputs?: Record<string, unknown> | undefined;
  readonly error?: Record<string, unknown> | undefined;
}

const FINISHED: readonly StepRunStatus[] = ['succeeded', 'failed', 'skipped', 'cancelled'];

/** Step runs: one per (run, attempt, step). */
export class StepRunsRepo {
  constructor(private readonly knex: Knex) {}

  /** Creates the step run, or answers undefined when (run, attempt, step) has one already. */
  async insert(
    trx: Knex.Transaction,
    row: { run_id: string; attempt: number; step_id: string; handler: string; status: StepRunStatus },
  ): Promise<StepRunRow | undefined> {
    const [created] = await trx('step_runs')
      .insert({
        ...row,
        started_at: row.status === 'running' ? trx.fn.now() : null,
        finished_at: FINISHED.includes(row.status) ? trx.fn.now() : null,
      })
      .onConflict(['run_id', 'attempt', 'step_id'])
      .ignore()
      .returning(COLUMNS);
    return created as StepRunRow | undefined;
  }

  find(trx: Knex | Knex.Transaction, runId: string, attempt: number, stepId: string): Promise<StepRunRow | undefined> {
    return trx('step_runs').where({ run_id: runId, attempt, step_id: stepId }).first(COLUMNS);
  }

  /** The step run's run, without a lock (the caller locks the run, then the step run). */
  async runOf(id: string): Promise<string | undefined> {
    const row = (await this.knex('step_runs').where({ id }).first('run_id')) as { run_id: string } | undefined;
    return row?.run_id;
  }

  lock(trx: Knex.Transaction, id: string): Promise<StepRunRow | undefined> {
    return trx('step_runs').where({ id }).forUpdate().first(COLUMNS);
  }

  async move(trx: Knex.Transaction, id: string, move: StepRunMove): Promise<StepRunRow> {
    const set: Record<string, unknown> = { status: move.status, updated_at: trx.fn.now() };
    if (move.status === 'running') set.started_at = trx.raw('coalesce(started_at, now())');
    if (FINISHED.includes(move.status)) set.finished_at = trx.fn.now();
    if (move.summary !== undefined) set.summary = move.summary;
    if (move.outputs !== undefined) set.outputs_json = JSON.stringify(move.outputs);
    if (move.error !== undefined) set.error_json = JSON.stringify(move.error);
    const [row] = await trx('step_runs').where({ id }).update(set).returning(COLUMNS);
    return row as StepRunRow;
  }

  /** Outputs of the succeeded step runs of one attempt, by step id. */
  async succeededOutputs(runId: string, attempt: number): Promise<Record<string, Record<string, unknown>>> {
    const rows = (await this.knex('step_runs')
      .where({ run_id: runId, attempt, status: 'succeeded' })
      .select('step_id', 'outputs_json')) as { step_id: string; outputs_json: Record<string, unknown> }[];
    return Object.fromEntries(rows.map((r) => [r.step_id, r.outputs_json]));
  }
}
