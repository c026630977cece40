import type { MaintenanceJobsAnswer, MaintenanceJobStatus } from '../../../shared/api/maintenance.js';
import type { JobRow, JobRunsRepo } from './job-runs-repo.js';

export interface JobStatusOptions {
  readonly timerEnabled: boolean;
  readonly intervalSeconds: number;
  readonly historyDays: number;
}

/**
 * `GET /settings/maintenance/jobs`: what the pass runs and how each job last went. The registered jobs
 * come from this instance (in the pass's order, a job that never ran included); their last runs from the
 * database, whichever instance ran them.
 */
export class JobStatusReader {
  constructor(
    private readonly runs: JobRunsRepo,
    private readonly registered: readonly string[],
    private readonly options: JobStatusOptions,
  ) {}

  async read(): Promise<MaintenanceJobsAnswer> {
    const rows = new Map((await this.runs.listJobs()).map((row) => [row.name, row]));
    const known = new Set(this.registered);
    const jobs = [
      ...this.registered.map((name) => statusOf(name, true, rows.get(name))),
      ...[...rows.values()].filter((row) => !known.has(row.name)).map((row) => statusOf(row.name, false, row)),
    ];
    const { timerEnabled, intervalSeconds, historyDays } = this.options;
    return { timer: { enabled: timerEnabled, interval_seconds: intervalSeconds }, history_days: historyDays, jobs };
  }
}

function statusOf(name: string, registered: boolean, row: JobRow | undefined): MaintenanceJobStatus {
  if (!row) return { name, registered, runs: 0, failures: 0, last_run: null, last_succeeded_at: null };
  return {
    name,
    registered,
    runs: Number(row.runs),
    failures: Number(row.failures),
    last_run: {
      outcome: row.last_outcome,
      trigger: row.last_trigger,
      instance: row.last_instance,
      started_at: new Date(row.last_started_at).toISOString(),
      finished_at: new Date(row.last_finished_at).toISOString(),
      duration_ms: row.last_duration_ms,
      summary: row.last_summary_json,
      error: row.last_error_code === null ? null : { code: row.last_error_code, message: row.last_error_message ?? '' },
    },
    last_succeeded_at: row.last_succeeded_at === null ? null : new Date(row.last_succeeded_at).toISOString(),
  };
}
