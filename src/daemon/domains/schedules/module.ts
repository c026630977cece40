import type { DomainRoutes } from '../../http/types.js';
import { retentionJob } from '../maintenance/housekeeping-jobs.js';
import type { MaintenanceJob } from '../maintenance/job.js';
import type { Services } from '../../services.js';
import type { RunAdmission } from '../runs/run-admission.js';
import { scheduleRoutes, schedulerRoutes } from './routes.js';
import { ScheduleFirer } from './schedule-firer.js';
import { SchedulerLoop } from './scheduler-loop.js';
import { SchedulesRepo } from './schedules-repo.js';
import { SchedulesService, type Clock } from './schedules-service.js';

export interface SchedulesModule {
  readonly routes: readonly DomainRoutes[];
  /** Fires what is due at `now` (the loop's pass; what the maintenance tick may call too). */
  readonly firer: ScheduleFirer;
  /**
   * The maintenance pass's jobs: one fires what is due (with the loop off, an external tick alone keeps
   * schedules firing), one deletes fire rows past their retention.
   */
  readonly maintenanceJobs: readonly MaintenanceJob[];
  /** Starts the embedded scheduler loop, unless SERVICE_SCHEDULER_ENABLED is off. */
  start(): void;
  /** Stops the loop and waits for its pass; safe whether or not started. */
  stop(): Promise<void>;
}

/** Schedules: management, the fires (embedded loop and the external scheduler's routes). `clock` is a test's. */
export function schedulesModule(services: Services, core: { admission: RunAdmission }, clock: Clock = () => new Date()): SchedulesModule {
  const { config, log } = services;
  const repo = new SchedulesRepo(services.db.knex);
  const firer = new ScheduleFirer(
    repo,
    core.admission,
    services.audit,
    log,
    { graceMs: config.schedulerMisfireGraceSeconds * 1000, catchUpMax: config.schedulerCatchUpMax },
    clock,
  );
  const loop = new SchedulerLoop(firer, repo, log, { intervalMs: config.schedulerIntervalMs }, clock);
  return {
    routes: [scheduleRoutes(new SchedulesService(repo, core.admission, services.audit, clock)), schedulerRoutes(firer)],
    firer,
    maintenanceJobs: [
      { name: 'schedules.fire_due', run: async (now) => fireSummary(await firer.fireDue(now)) },
      retentionJob('schedule_fires.retention', config.scheduleFireRetentionDays, (before) => repo.deleteFiresBefore(before)),
    ],
    start: () => {
      if (config.schedulerEnabled) loop.start();
    },
    stop: () => loop.stop(),
  };
}

/**
 * A pass's fires as counts, for the maintenance job's recorded summary (the reports themselves may be many):
 * every count present, zero included, so a reader of `summary.fired` gets a number on a quiet pass too.
 */
function fireSummary({ looked, reports }: Awaited<ReturnType<ScheduleFirer['fireDue']>>): Record<string, number> {
  const summary: Record<string, number> = { looked, fired: 0, failed: 0, lost: 0 };
  for (const fire of reports.flatMap((report) => report.fires)) summary[fire.outcome] = (summary[fire.outcome] ?? 0) + 1;
  return summary;
}
