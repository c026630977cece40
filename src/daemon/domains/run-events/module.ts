import type { DomainRoutes } from '../../http/types.js';
import type { Services } from '../../services.js';
import { RunEventsHub } from './run-events-hub.js';
import { RunEventsRepo } from './run-events-repo.js';
import { RunEventsService } from './run-events-service.js';
import { runEventRoutes } from './routes.js';
import { StreamAccess } from './stream-access.js';

export interface RunEventsModule {
  readonly routes: readonly DomainRoutes[];
  /** This daemon's live streams: started once the daemon has made its domains, stopped by its stop sequence. */
  readonly hub: RunEventsHub;
}

/** A run's events: the paged read and the live stream, with the daemon's one hub. */
export function runEventsModule(services: Services): RunEventsModule {
  const { config, db, log } = services;
  const repo = new RunEventsRepo(db.knex);
  const hub = new RunEventsHub({
    listen: db.listen,
    repo,
    log,
    pollSeconds: config.streamPollSeconds,
    keepaliveSeconds: config.streamKeepaliveSeconds,
  });
  const access = new StreamAccess(services.orgAccess, services.overrideStore, services.audit);
  return { routes: [runEventRoutes(new RunEventsService(repo, hub), access)], hub };
}
