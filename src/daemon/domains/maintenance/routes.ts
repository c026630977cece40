import { maintenanceJobsAnswer, maintenanceTickAnswer } from '../../../shared/api/maintenance.js';
import { noQuery } from '../../../shared/api/query.js';
import { route } from '../../http/route.js';
import type { DomainRoutes } from '../../http/types.js';
import type { JobStatusReader } from './job-status.js';
import type { MaintenanceRunner } from './maintenance-runner.js';

/**
 * `internal:scheduler`'s maintenance route (the schedules' routes are the schedules domain's), and
 * `maintenance_job:view`, the administrator's view of the same jobs.
 */
export function maintenanceRoutes(runner: MaintenanceRunner, status: JobStatusReader): DomainRoutes {
  return {
    'GET /settings/maintenance/jobs': route({
      summary:
        "The maintenance pass's jobs (docs/maintenance.md) in the order it runs them, each with its last run (outcome, trigger, instance, times, summary, error), its last success and its counts of runs and failures, whichever instance ran it; then this instance's timer and the history's retention.",
      query: noQuery,
      responses: { 200: { description: 'The jobs and the timer', schema: maintenanceJobsAnswer } },
      async handle(ctx) {
        ctx.body = await status.read();
      },
    }),
    'POST /internal/maintenance/tick': route({
      summary:
        "Runs every maintenance job now (reaping expired run leases, expiry, retention: docs/maintenance.md) and answers what each did; a job that failed is reported `failed` with its error and the others still run. Takes no lock: every job is safe beside the same job on another instance. Each run is recorded as the timer's are.",
      noBody: true,
      responses: {
        200: {
          description: '`instance`, and `jobs`: each job in order with `outcome`, `started_at`, `duration_ms`, `summary`, `error`',
          schema: maintenanceTickAnswer,
        },
        503: { description: 'The database does not answer (`database_unavailable`): the runs could not be recorded' },
      },
      async handle(ctx) {
        ctx.body = await runner.runAll('tick');
      },
    }),
  };
}
