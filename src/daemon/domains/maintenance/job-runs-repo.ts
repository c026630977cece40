import type { Knex } from 'knex';
import { deleteInBatches } from '../../db/batched-delete.js';
import type { PassTrigger } from './job.js';

/** One run of a job as it is recorded. */
export interface JobRunRecord {
  readonly job: string;
  readonly trigger: PassTrigger;
  readonly instance: string;
  readonly startedAt: Date;
  readonly finishedAt: Date;
  readonly durationMs: number;
  readonly outcome: 'ok' | 'failed';
  readonly summary: Record<string, unknown> | null;
  readonly error: { readonly code: string; readonly message: string } | null;
}

/**
 * The run is added to the history and becomes its job's last run in one statement (one round trip,
 * one statement per `knex.raw` for PGlite); `last_succeeded_at` moves only on success.
 */
const RECORD = `WITH run AS (
    INSERT INTO maintenance_job_runs
      (job, trigger, instance, started_at, finished_at, duration_ms, outcome, error_code, error_message, summary_json)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb)
    RETURNING *
  )
  INSERT INTO maintenance_jobs AS j (name, last_run_id, last_trigger, last_instance, last_started_at, last_finished_at,
    last_duration_ms, last_outcome, last_error_code, last_error_message, last_summary_json, last_succeeded_at, runs, failures)
  SELECT job, id, trigger, instance, started_at, finished_at, duration_ms, outcome, error_code, error_message, summary_json,
    CASE WHEN outcome = 'ok' THEN finished_at END, 1, CASE WHEN outcome = 'failed' THEN 1 ELSE 0 END
  FROM run
  ON CONFLICT (name) DO UPDATE SET last_run_id = EXCLUDED.last_run_id, last_trigger = EXCLUDED.last_trigger,
    last_instance = EXCLUDED.last_instance, last_started_at = EXCLUDED.last_started_at,
    last_finished_at = EXCLUDED.last_finished_at, last_duration_ms = EXCLUDED.last_duration_ms,
    last_outcome = EXCLUDED.last_outcome, last_error_code = EXCLUDED.last_error_code,
    last_error_message = EXCLUDED.last_error_message, last_summary_json = EXCLUDED.last_summary_json,
    last_succeeded_at = coalesce(EXCLUDED.last_succeeded_at, j.last_succeeded_at),
    runs = j.runs + 1, failures = j.failures + EXCLUDED.failures`;

/** A row of `maintenance_jobs`: a job's last run and its counts. */
export interface JobRow {
  readonly name: string;
  readonly last_trigger: string;
  readonly last_instance: string;
  readonly last_started_at: Date;
  readonly last_finished_at: Date;
  readonly last_duration_ms: number;
  readonly last_outcome: 'ok' | 'failed';
  readonly last_error_code: string | null;
  readonly last_error_message: string | null;
  readonly last_summary_json: Record<string, unknown> | null;
  readonly last_succeeded_at: Date | null;
  readonly runs: string | number;
  readonly failures: string | number;
}

/** The maintenance jobs' recorded runs: the history and each job's last run. */
export class JobRunsRepo {
  constructor(private readonly knex: Knex) {}

  async record(run: JobRunRecord): Promise<void> {
    await this.knex.raw(RECORD, [
      run.job,
      run.trigger,
      run.instance,
      run.startedAt,
      run.finishedAt,
      run.durationMs,
      run.outcome,
      run.error?.code ?? null,
      run.error?.message ?? null,
      run.summary === null ? null : JSON.stringify(run.summary),
    ]);
  }

  /** Every job that ever ran, with its last run (one scan of a table of one row per job). */
  listJobs(): Promise<JobRow[]> {
    return this.knex<JobRow>('maintenance_jobs').select('*').orderBy('name');
  }

  /** Deletes history rows of runs started before `before`, in batches; each job's last run stays in `maintenance_jobs`. */
  deleteStartedBefore(before: Date, batch: number): Promise<number> {
    return deleteInBatches(this.knex, 'maintenance_job_runs', { sql: 'started_at < ?', bindings: [before] }, batch);
  }
}
