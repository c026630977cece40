import {
  createMonitorBody,
  finalizeAnswer,
  finalizePath,
  monitor,
  monitorDbPath,
  monitorList,
  monitorStreamText,
  patchMonitorBody,
  runMonitorPath,
  sampleBatchAnswer,
  sampleBatchBody,
  samplesPage,
  samplesQuery,
} from '../../../shared/api/monitors.js';
import { noQuery, runPath } from '../../../shared/api/runs.js';
import { activeOrg } from '../../http/active-org.js';
import { refuseNul } from '../../http/refuse-nul.js';
import { route } from '../../http/route.js';
import type { AppContext, DomainRoutes } from '../../http/types.js';
import { type RunStreams, runStreamRoute } from '../../live-streams/run-stream.js';
import { holderOf } from '../run-callbacks/fence.js';
import type { MonitorCallbacksService } from './monitor-callbacks-service.js';
import type { MonitorReadsService } from './monitor-reads-service.js';
import { refuseOversizedSampleBatch, type SampleBatchService } from './sample-batch-service.js';

const holder = (ctx: AppContext) => holderOf(ctx.req.headers);

const MONITOR = { description: 'The monitor', schema: monitor };
const MONITOR_NOT_FOUND = { description: 'No such monitor (`resource_not_found`)' };
const FENCED_409 = {
  description:
    "The headers name a worker and attempt that do not hold the monitor's run (`run_not_held`), or the monitor is closed (`monitor_closed`)",
};
const INVALID = {
  description: 'Malformed body or fencing headers (`validation_failed`, paths `headers.x-worker-id`, `headers.x-run-attempt`)',
};
const RUN_NOT_FOUND = { description: 'No such run in the active organization (`resource_not_found`)' };

export interface MonitorCallbackServices {
  readonly monitors: MonitorCallbacksService;
  readonly samples: SampleBatchService;
}

/**
 * The worker's monitor ingestion (`internal:monitor_callbacks`, `X-Internal-Token`). The writes are fenced
 * by `X-Worker-Id` and `X-Run-Attempt` as the run callbacks are (run-callbacks/fence.ts); docs/monitors.md.
 */
export function monitorCallbackRoutes({ monitors, samples }: MonitorCallbackServices): DomainRoutes {
  return {
    'POST /api/v1/monitors': route({
      summary:
        'Opens a monitor of the run the headers hold: `{run_id, monitor_key, kind, name?, step_id?, target?, unit?}`. One per (run, `monitor_key`): a retried create answers the existing one with 200.',
      query: noQuery,
      preValidation: refuseNul,
      body: createMonitorBody,
      responses: {
        200: MONITOR,
        201: MONITOR,
        404: { description: 'No such run (`resource_not_found`)' },
        409: FENCED_409,
        413: { description: 'The run has opened SERVICE_MONITOR_MAX_PER_RUN monitors (`monitor_run_limit`: `limit`, `run_id`)' },
        422: INVALID,
      },
      async handle(ctx, { body }) {
        const { created, monitor: answer } = await monitors.create(holder(ctx), body);
        ctx.status = created ? 201 : 200;
        ctx.body = answer;
      },
    }),
    'GET /api/v1/monitors/{monitor_db_id}': route({
      summary: 'The monitor, by its id: status, summary, sample count and last sample.',
      params: monitorDbPath,
      query: noQuery,
      responses: { 200: MONITOR, 404: MONITOR_NOT_FOUND },
      async handle(ctx, { params }) {
        ctx.body = await monitors.get(params.monitor_db_id);
      },
    }),
    'PATCH /api/v1/monitors/{monitor_db_id}': route({
      summary:
        "The worker's changes to an open monitor: `{summary?, name?, target?, unit?, status?: 'closed'}`; a closed monitor answers 409 `monitor_closed`.",
      params: monitorDbPath,
      query: noQuery,
      preValidation: refuseNul,
      body: patchMonitorBody,
      responses: { 200: MONITOR, 404: MONITOR_NOT_FOUND, 409: FENCED_409, 422: INVALID },
      async handle(ctx, { params, body }) {
        ctx.body = await monitors.patch(params.monitor_db_id, holder(ctx), body);
      },
    }),
    'POST /api/v1/monitor-samples/batch': route({
      summary:
        'Samples of one or more monitors of one run `{samples: [{monitor_id, seq, ts?, value?, status?, data?}]}`, deduplicated by (monitor, seq); refused whole when any monitor is unknown, closed or would pass SERVICE_MONITOR_MAX_SAMPLES. Answers `accepted` and `duplicates`.',
      query: noQuery,
      preValidation: (ctx) => {
        refuseOversizedSampleBatch(ctx.state.body);
        refuseNul(ctx);
      },
      body: sampleBatchBody,
      responses: {
        200: { description: '`accepted` (stored now), `duplicates` (stored already, or repeated in the batch)', schema: sampleBatchAnswer },
        404: { description: 'A monitor of the batch does not exist (`resource_not_found`, `monitor_id`)' },
        409: FENCED_409,
        413: {
          description:
            '`monitor_batch_too_large` (`limit`, `count`), `monitor_sample_too_large` (`limit`, `index`), `monitor_sample_limit` (`limit`, `monitor_id`, `sample_count`), `payload_too_large`',
        },
        422: { description: `${INVALID.description}, or monitors of more than one run` },
      },
      async handle(ctx, { body }) {
        ctx.body = await samples.append(holder(ctx), body.samples);
      },
    }),
    'POST /api/v1/monitors/finalize-for-run/{run_id}': route({
      summary:
        'Closes every open monitor of the run the headers hold; samples for them then answer 409 `monitor_closed`. Answers the ids it closed.',
      params: finalizePath,
      query: noQuery,
      noBody: true,
      responses: {
        200: { description: '`closed`: the monitors this call closed', schema: finalizeAnswer },
        404: { description: 'No such run (`resource_not_found`)' },
        409: { description: '`run_not_held`' },
        422: INVALID,
      },
      async handle(ctx, { params }) {
        ctx.body = await monitors.finalize(params.run_id, holder(ctx));
      },
    }),
  };
}

/** A run's monitors as users read them (`run:view`), and the live stream of their samples (`run:stream`). */
export function monitorReadRoutes(reads: MonitorReadsService, streams: RunStreams): DomainRoutes {
  return {
    'GET /runs/{run_id}/monitors': route({
      summary: "The run's monitors, oldest first, each with its status, summary, sample count and last sample.",
      params: runPath,
      query: noQuery,
      responses: { 200: { description: '`items`', schema: monitorList }, 404: RUN_NOT_FOUND },
      async handle(ctx, { params }) {
        ctx.body = await reads.list(activeOrg(ctx).id, params.run_id);
      },
    }),
    'GET /runs/{run_id}/monitors/{monitor_id}': route({
      summary: 'One monitor of the run.',
      params: runMonitorPath,
      query: noQuery,
      responses: { 200: MONITOR, 404: { description: 'No such run in the active organization, or monitor of it (`resource_not_found`)' } },
      async handle(ctx, { params }) {
        ctx.body = await reads.get(activeOrg(ctx).id, params.run_id, params.monitor_id);
      },
    }),
    'GET /runs/{run_id}/monitors/{monitor_id}/samples': route({
      summary:
        "A monitor's samples by seq: `after` (a seq, 0 from the start), `from` (inclusive) and `to` (exclusive) a window on `ts`, `limit` (500, ≤ 5000). `next_after` is the next page's `after`, null when nothing more matches.",
      params: runMonitorPath,
      query: samplesQuery,
      responses: {
        200: { description: '`items`, `next_after`', schema: samplesPage },
        404: { description: 'No such run in the active organization, or monitor of it (`resource_not_found`)' },
      },
      async handle(ctx, { params, query }) {
        ctx.body = await reads.samples(activeOrg(ctx).id, params.run_id, params.monitor_id, query);
      },
    }),
    'GET /runs/{run_id}/monitors/stream': runStreamRoute(streams, {
      summary:
        "The samples of the run's monitors as server-sent events, as the run's event stream is served: `retry: 3000`, then frames `id: <position>`, `event: monitor.sample`, `data: {seq, type, monitor_id, monitor_key, sample_seq, ts, value, status, data}` from the position (`Last-Event-ID` or `last_event_id`, the larger; 0 by default), replayed then live, a `: keepalive` comment every SERVICE_STREAM_KEEPALIVE_SECONDS, and `event: end` with `data: {\"status\"}` once the run is terminal and every sample was sent. A single-use `ticket` or a bearer; the organization is `org`, else `X-Org-Id`, else a personal access token's, else the default.",
      description: 'The monitor sample stream',
      text: monitorStreamText,
    }),
  };
}
