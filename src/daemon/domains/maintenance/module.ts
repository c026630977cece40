import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { DomainRoutes } from '../../http/types.js';
import type { Services } from '../../services.js';
import { historyRetentionJob, HOUSEKEEPING_BATCH } from './housekeeping-jobs.js';
import type { MaintenanceJob } from './job.js';
import { JobRunsRepo } from './job-runs-repo.js';
import { JobStatusReader } from './job-status.js';
import { MaintenanceRunner, type Clock } from './maintenance-runner.js';
import { MaintenanceTimer } from './maintenance-timer.js';
import { passLockFor } from './pass-lock.js';
import { maintenanceRoutes } from './routes.js';

export interface MaintenanceOptions {
  /** The pass's clock (tests inject one); the system clock otherwise. */
  readonly clock?: Clock;
}

export interface MaintenanceModule {
  readonly routes: readonly DomainRoutes[];
  /** Runs the registered jobs and records them (the tick route's function). */
  readonly runner: MaintenanceRunner;
  /** The instance's timer; started by `start` unless SERVICE_MAINTENANCE_TIMER_ENABLED is false. */
  readonly timer: MaintenanceTimer;
  start(): void;
  /** Stops the timer, waiting for a pass under way; safe whether or not started. */
  stop(): Promise<void>;
}

/** This daemon's name in the recorded runs: host, process and a random part (several daemons may share a process in tests). */
function instanceName(): string {
  return `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

/**
 * The maintenance pass (docs/maintenance.md) over `jobs`, which the composition root hands in (each owned
 * by its domain), then the pass's own history retention. The timer's interval is
 * SERVICE_MAINTENANCE_INTERVAL_SECONDS, else the reaper's former setting.
 */
export function maintenanceModule(
  services: Services,
  jobs: readonly MaintenanceJob[],
  options: MaintenanceOptions = {},
): MaintenanceModule {
  const { config, db, log } = services;
  const runs = new JobRunsRepo(db.knex);
  const history = historyRetentionJob(config.maintenanceHistoryDays, (before) => runs.deleteStartedBefore(before, HOUSEKEEPING_BATCH));
  const runner = new MaintenanceRunner([...jobs, history], runs, options.clock ?? (() => new Date()), instanceName(), log);
  const interval = config.maintenanceIntervalSeconds ?? config.runReaperIntervalSeconds;
  const timer = new MaintenanceTimer(runner, passLockFor(db), log, interval);
  const status = new JobStatusReader(runs, runner.jobNames, {
    timerEnabled: config.maintenanceTimerEnabled,
    intervalSeconds: interval,
    historyDays: config.maintenanceHistoryDays,
  });
  return {
    routes: [maintenanceRoutes(runner, status)],
    runner,
    timer,
    start: () => {
      if (config.maintenanceTimerEnabled) timer.start();
    },
    stop: () => timer.stop(),
  };
}
