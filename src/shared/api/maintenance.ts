import { z } from 'zod';

/** Wire schemas of the maintenance pass (`POST /internal/maintenance/tick`, docs/maintenance.md). */

export const MAINTENANCE_OUTCOMES = ['ok', 'failed'] as const;

/** What one job did in a pass, as recorded in `maintenance_job_runs`. */
export const maintenanceJobRun = z.object({
  /** The job's stable name (`runs.reap_expired_leases`, …). */
  name: z.string(),
  outcome: z.enum(MAINTENANCE_OUTCOMES),
  started_at: z.string(),
  duration_ms: z.number().int().min(0),
  /** What the job did (counts, ids): null when it failed. */
  summary: z.record(z.string(), z.unknown()).nullable(),
  /** Why it failed: a stable code (a problem code, `database_unavailable`, or `internal_error`) and the message. */
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
});

export const maintenanceTickAnswer = z.object({
  /** The daemon instance that ran the pass. */
  instance: z.string(),
  /** Every registered job, in registration order. */
  jobs: z.array(maintenanceJobRun),
});

export type MaintenanceJobRun = z.infer<typeof maintenanceJobRun>;
export type MaintenanceTickAnswer = z.infer<typeof maintenanceTickAnswer>;

/** A job's last recorded run, as `GET /settings/maintenance/jobs` shows it. */
export const maintenanceJobLastRun = z.object({
  outcome: z.enum(MAINTENANCE_OUTCOMES),
  /** `timer` (an instance's own timer) or `tick` (`POST /internal/maintenance/tick`). */
  trigger: z.string(),
  /** The daemon instance that ran it. */
  instance: z.string(),
  started_at: z.string(),
  finished_at: z.string(),
  duration_ms: z.number().int().min(0),
  summary: z.record(z.string(), z.unknown()).nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
});

export const maintenanceJobStatus = z.object({
  name: z.string(),
  /** False for a job that ran under an earlier version of the daemon and is no longer registered. */
  registered: z.boolean(),
  /** Runs and failures recorded since the job first ran. */
  runs: z.number().int().min(0),
  failures: z.number().int().min(0),
  /** Null until the job first ran. */
  last_run: maintenanceJobLastRun.nullable(),
  last_succeeded_at: z.string().nullable(),
});

export const maintenanceJobsAnswer = z.object({
  /** This instance's timer (SERVICE_MAINTENANCE_TIMER_ENABLED, SERVICE_MAINTENANCE_INTERVAL_SECONDS). */
  timer: z.object({ enabled: z.boolean(), interval_seconds: z.number().int().min(1) }),
  /** Days the history of runs is kept (SERVICE_MAINTENANCE_HISTORY_DAYS); each job's last run is kept for good. */
  history_days: z.number().int().min(0),
  /** The registered jobs in the pass's order, then any recorded job no longer registered. */
  jobs: z.array(maintenanceJobStatus),
});

export type MaintenanceJobStatus = z.infer<typeof maintenanceJobStatus>;
export type MaintenanceJobsAnswer = z.infer<typeof maintenanceJobsAnswer>;
