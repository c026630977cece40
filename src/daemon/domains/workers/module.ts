import type { DomainRoutes } from '../../http/types.js';
import type { Services } from '../../services.js';
import { EnvKeysRepo } from './env-keys-repo.js';
import { EnvKeysService } from './env-keys-service.js';
import { HeartbeatService } from './heartbeat-service.js';
import { LeaseEnds } from './lease-ends.js';
import { LeasesRepo } from './leases-repo.js';
import { Reaper } from './reaper.js';
import { workerRoutes } from './routes.js';
import { WorkWaker } from './work-waker.js';
import { WorkersRepo } from './workers-repo.js';
import { WorkersService } from './workers-service.js';

export interface WorkersModule {
  readonly routes: readonly DomainRoutes[];
  /** Ends expired leases (what `POST /internal/maintenance/tick` will call; the timer calls it too). */
  readonly reaper: Reaper;
  /** Starts the waker's listeners and the reaper's timer. */
  start(): void;
  /** Answers every waiting heartbeat at once, and every later one without waiting: the daemon is shutting down. */
  drain(): void;
  /** Stops the timer and the listeners; safe whether or not started. */
  stop(): Promise<void>;
}

/** The worker registry: heartbeats (the claim), leases and their reaper, env keys, the list. */
export function workersModule(services: Services): WorkersModule {
  const { config, db, log } = services;
  const leases = new LeasesRepo(db.knex);
  const workers = new WorkersRepo(db.knex);
  const ends = new LeaseEnds(leases, services.audit);
  const waker = new WorkWaker(db.listen);
  const reaper = new Reaper(leases, ends, log, config.runReaperIntervalSeconds);
  const heartbeat = new HeartbeatService(workers, leases, ends, waker, config.runLeaseSeconds);
  const routes = workerRoutes({
    heartbeat,
    workers: new WorkersService(workers, config.runLeaseSeconds),
    envKeys: new EnvKeysService(new EnvKeysRepo(db.knex)),
  });
  return {
    routes: [routes],
    reaper,
    start: () => {
      waker.start();
      reaper.start();
    },
    drain: () => waker.drain(),
    stop: async () => {
      await reaper.stop();
      await waker.stop();
    },
  };
}
