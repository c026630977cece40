import type { DomainRoutes } from '../../http/types.js';
import type { Services } from '../../services.js';
import type { MaintenanceJob } from '../maintenance/job.js';
import { EnvKeysRepo } from './env-keys-repo.js';
import { EnvKeysService } from './env-keys-service.js';
import { HeartbeatService } from './heartbeat-service.js';
import { LeaseEnds } from './lease-ends.js';
import { LeasesRepo } from './leases-repo.js';
import { leaseReapingJob, Reaper } from './reaper.js';
import { workerRoutes } from './routes.js';
import { WorkWaker } from './work-waker.js';
import { WorkersRepo } from './workers-repo.js';
import { WorkersService } from './workers-service.js';

export interface WorkersModule {
  readonly routes: readonly DomainRoutes[];
  /** Ends expired leases. */
  readonly reaper: Reaper;
  /** Its jobs of the maintenance pass: reaping expired leases. */
  readonly maintenanceJobs: readonly MaintenanceJob[];
  /** Starts the waker's listeners. */
  start(): void;
  /** Answers every waiting heartbeat at once, and every later one without waiting: the daemon is shutting down. */
  drain(): void;
  /** Stops the listeners; safe whether or not started. */
  stop(): Promise<void>;
}

/** The worker registry: heartbeats (the claim), leases and their reaper (a maintenance job), env keys, the list. */
export function workersModule(services: Services): WorkersModule {
  const { config, db, log } = services;
  const leases = new LeasesRepo(db.knex);
  const workers = new WorkersRepo(db.knex);
  const ends = new LeaseEnds(leases, services.audit);
  const waker = new WorkWaker(db.listen);
  const reaper = new Reaper(leases, ends);
  const heartbeat = new HeartbeatService(workers, leases, ends, waker, config.runLeaseSeconds);
  const routes = workerRoutes({
    heartbeat,
    workers: new WorkersService(workers, config.runLeaseSeconds),
    envKeys: new EnvKeysService(new EnvKeysRepo(db.knex)),
  });
  return {
    routes: [routes],
    reaper,
    maintenanceJobs: [leaseReapingJob(reaper, log)],
    start: () => waker.start(),
    drain: () => waker.drain(),
    stop: () => waker.stop(),
  };
}
