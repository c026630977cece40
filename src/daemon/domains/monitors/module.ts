import type { DomainRoutes } from '../../http/types.js';
import { MONITOR_SAMPLES_CHANNEL } from '../../db/channels.js';
import { type LiveHub, liveSource } from '../../live-streams/live-hub.js';
import { dataFrame } from '../../live-streams/sse-frames.js';
import { liveRunStreams } from '../../live-streams/run-stream.js';
import type { Services } from '../../services.js';
import { MonitorCallbacksService } from './monitor-callbacks-service.js';
import { MonitorReadsService } from './monitor-reads-service.js';
import { MonitorSamplesRepo } from './monitor-samples-repo.js';
import { MonitorsRepo } from './monitors-repo.js';
import { monitorCallbackRoutes, monitorReadRoutes } from './routes.js';
import { SampleBatchService } from './sample-batch-service.js';

export interface MonitorsModule {
  readonly routes: readonly DomainRoutes[];
  /** This daemon's live monitor streams: started and stopped with the event streams' hub. */
  readonly hub: LiveHub;
}

/** Run monitors: the worker's ingestion (`/api/v1/monitors…`), users' reads and the live stream. docs/monitors.md. */
export function monitorsModule(services: Services): MonitorsModule {
  const knex = services.db.knex;
  const monitors = new MonitorsRepo(knex);
  const samples = new MonitorSamplesRepo(knex);
  const reads = new MonitorReadsService(monitors);
  const { hub, streams } = liveRunStreams(services, {
    // One frame per sample: `id:` its position in the run's monitor stream, `event: monitor.sample`.
    source: liveSource({
      channel: MONITOR_SAMPLES_CHANNEL,
      name: 'monitor samples',
      read: (runId, after, limit) => samples.read(runId, after, limit),
      frame: (item) => dataFrame(item.seq, item.type, item),
    }),
    routes: { read: 'GET /runs/{run_id}/monitors', stream: 'GET /runs/{run_id}/monitors/stream' },
    runExists: (orgId, runId) => reads.runVisible(orgId, runId),
  });
  return {
    routes: [
      monitorCallbackRoutes({
        monitors: new MonitorCallbacksService(monitors, services.config.monitorMaxPerRun),
        samples: new SampleBatchService(monitors, samples, services.config.monitorMaxSamples),
      }),
      monitorReadRoutes(reads, streams),
    ],
    hub,
  };
}
