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
