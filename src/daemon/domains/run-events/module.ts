import type { DomainRoutes } from '../../http/types.js';
import { RUN_EVENTS_CHANNEL } from '../../db/channels.js';
import { type LiveHub, liveSource } from '../../live-streams/live-hub.js';
import { liveRunStreams } from '../../live-streams/run-stream.js';
import type { Services } from '../../services.js';
import { RunEventsRepo } from './run-events-repo.js';
import { RunEventsService } from './run-events-service.js';
import { eventFrame } from './event-frame.js';
import { runEventRoutes } from './routes.js';

export interface RunEventsModule {
  readonly routes: readonly DomainRoutes[];
  /** This daemon's live event streams: started once the daemon has made its domains, stopped by its stop sequence. */
  readonly hub: LiveHub;
}

/** A run's events: the paged read and the live stream, with the daemon's one hub. */
export function runEventsModule(services: Services): RunEventsModule {
  const repo = new RunEventsRepo(services.db.knex);
  const service = new RunEventsService(repo);
  const { hub, streams } = liveRunStreams(services, {
    source: liveSource({
      channel: RUN_EVENTS_CHANNEL,
      name: 'run events',
      read: (runId, after, limit) => repo.read(runId, after, limit),
      frame: eventFrame,
    }),
    routes: { read: 'GET /runs/{run_id}/events', stream: 'GET /bff/runs/{run_id}/events/stream' },
    runExists: (orgId, runId) => service.exists(orgId, runId),
  });
  return { routes: [runEventRoutes(service, streams)], hub };
}
