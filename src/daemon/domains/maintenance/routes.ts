import { maintenanceTickAnswer } from '../../../shared/api/maintenance.js';
import { route } from '../../http/route.js';
import type { DomainRoutes } from '../../http/types.js';
import type { MaintenanceRunner } from './maintenance-runner.js';

/** `internal:scheduler`'s maintenance route (the schedules' routes are the schedules domain's). */
export function maintenanceRoutes(runner: MaintenanceRunner): DomainRoutes {
  return {
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
