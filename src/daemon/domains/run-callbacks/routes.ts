import {
  assignSharedWorkerAnswer,
  assignSharedWorkerBody,
  childRunBody,
  createStepRunBody,
  eventBatchAnswer,
  eventBatchBody,
  internalCancelBody,
  internalRun,
  internalRunPath,
  patchInternalRunBody,
  patchStepRunBody,
  runOutputs,
  runVarsAnswer,
  runVarsBody,
  stepOutputs,
  stepRun,
  stepRunPath,
} from '../../../shared/api/run-callbacks.js';
import { noQuery, run } from '../../../shared/api/runs.js';
import { problems } from '../../../shared/api/problems.js';
import { findUnstorableTextInJson, UNSTORABLE_TEXT_MESSAGES } from '../../../shared/json/unstorable-text.js';
import { route } from '../../http/route.js';
import type { AppContext, DomainRoutes } from '../../http/types.js';
import type { ChildRunsService } from './child-runs-service.js';
import { type EventBatchService, refuseOversizedBatch } from './event-batch-service.js';
import { holderOf } from './fence.js';
import type { RunCallbacksService } from './run-callbacks-service.js';
import type { StepRunsService } from './step-runs-service.js';

export interface RunCallbackServices {
  readonly runs: RunCallbacksService;
  readonly events: EventBatchService;
  readonly stepRuns: StepRunsService;
  readonly children: ChildRunsService;
}

/** NUL cannot be stored (text and jsonb refuse it): 422 naming where, before the body's schema. */
export function refuseNul(ctx: AppContext): void {
  const raw = ctx.state.rawBody;
  if (!raw) return;
  const found = findUnstorableTextInJson(raw.toString('utf8'), ctx.state.body, ['nul']);
  if (found) throw problems.validation([{ path: found.path, message: UNSTORABLE_TEXT_MESSAGES.nul }]);
}

const holder = (ctx: AppContext) => holderOf(ctx.req.headers);

const NOT_FOUND = { description: 'No such run (`resource_not_found`)' };
const FENCED_409 = {
  description:
    'The headers name a worker and attempt that do not hold the run (`run_not_held`), or its status forbids it (`invalid_run_state`)',
};
const INVALID = {
  description: 'Malformed body or fencing headers (`validation_failed`, paths `headers.x-worker-id`, `headers.x-run-attempt`)',
};
const INTERNAL_RUN = { description: 'The run', schema: internalRun };
const STEP_RUN = { description: 'The step run', schema: stepRun };

/**
 * The worker's callbacks on its runs (`internal:run_callbacks`, `X-Internal-Token`). Mutating ones are
 * fenced by `X-Worker-Id` and `X-Run-Attempt` (fence.ts); docs/run-callbacks.md.
 */
export function runCallbackRoutes(services: RunCallbackServices): DomainRoutes {
  const { runs, events, stepRuns, children } = services;
  return {
    'GET /internal/runs/{run_id}': route({
      summary: 'The run as its worker reads it: status, holder, params, targets, run vars, outputs, error, parent.',
      params: internalRunPath,
      query: noQuery,
      responses: { 200: INTERNAL_RUN, 404: NOT_FOUND },
      async handle(ctx, { params }) {
        ctx.body = await runs.get(params.run_id);
      },
    }),
    'PATCH /internal/runs/{run_id}': route({
      summary:
        'The holder ends the run, from running or paused: `{status: succeeded|failed, outputs?, error?}`; clears the lease, audits `run.finished` / `run.failed`.',
      params: internalRunPath,
      preValidation: refuseNul,
      body: patchInternalRunBody,
      responses: { 200: INTERNAL_RUN, 404: NOT_FOUND, 409: FENCED_409, 422: INVALID },
      async handle(ctx, { params, body }) {
        ctx.body = await runs.finish(params.run_id, holder(ctx), body, ctx.state.audit);
      },
    }),
    'POST /internal/runs/{run_id}/events': route({
      summary:
        "A batch of the worker's events `{events: [{worker_seq, type, step_id?, ts?, data?}]}`, deduplicated by (run, attempt, worker_seq) and numbered gap-free after the run's last event.",
      params: internalRunPath,
      preValidation: (ctx) => {
        refuseOversizedBatch(ctx.state.body);
        refuseNul(ctx);
      },
      body: eventBatchBody,
      responses: {
        200: { description: '`accepted`, `duplicates` (already stored), `last_seq`', schema: eventBatchAnswer },
        404: NOT_FOUND,
        409: { description: '`run_not_held`' },
        413: { description: '`event_batch_too_large` (`limit`, `count`), `event_too_large` (`limit`, `index`), `payload_too_large`' },
        422: INVALID,
      },
      async handle(ctx, { params, body }) {
        ctx.body = await events.append(params.run_id, holder(ctx), body.events);
      },
    }),
    'POST /internal/runs/{run_id}/step-runs': route({
      summary:
        "Creates the step run of the holder's attempt (the run must be running): `{step_id, handler, status?}`; a retried create answers the existing one with 200.",
      params: internalRunPath,
      preValidation: refuseNul,
      body: createStepRunBody,
      responses: { 200: STEP_RUN, 201: STEP_RUN, 404: NOT_FOUND, 409: FENCED_409, 422: INVALID },
      async handle(ctx, { params, body }) {
        const { created, stepRun: row } = await stepRuns.create(params.run_id, holder(ctx), body);
        ctx.status = created ? 201 : 200;
        ctx.body = row;
      },
    }),
    'PATCH /internal/step-runs/{step_run_id}': route({
      summary:
        "Moves a step run of the holder's attempt: pending → running|skipped|cancelled, running → succeeded|failed|cancelled; `summary`, `outputs`, `error`.",
      params: stepRunPath,
      preValidation: refuseNul,
      body: patchStepRunBody,
      responses: {
        200: STEP_RUN,
        404: { description: 'No such step run, or run (`resource_not_found`)' },
        409: { description: '`run_not_held`, `invalid_run_state` (starting a step of a run not running), `invalid_step_run_state`' },
        422: INVALID,
      },
      async handle(ctx, { params, body }) {
        ctx.body = await stepRuns.move(params.step_run_id, holder(ctx), body);
      },
    }),
    'GET /internal/runs/{run_id}/step-outputs': route({
      summary: "Outputs of the succeeded step runs of the run's current attempt, by step id.",
      params: internalRunPath,
      query: noQuery,
      responses: { 200: { description: '`{steps: {step_id: outputs}}`', schema: stepOutputs }, 404: NOT_FOUND },
      async handle(ctx, { params }) {
        ctx.body = await stepRuns.outputs(params.run_id);
      },
    }),
    'PUT /internal/runs/{run_id}/run-vars': route({
      summary: "Replaces the run's variables (the holder, while the run is active).",
      params: internalRunPath,
      preValidation: refuseNul,
      body: runVarsBody,
      responses: { 200: { description: 'The variables as stored', schema: runVarsAnswer }, 404: NOT_FOUND, 409: FENCED_409, 422: INVALID },
      async handle(ctx, { params, body }) {
        ctx.body = await runs.setRunVars(params.run_id, holder(ctx), body.run_vars);
      },
    }),
    'GET /internal/runs/{run_id}/outputs': route({
      summary: "A run's status, outputs and error (a parent's `flow.run` step reads its child's).",
      params: internalRunPath,
      query: noQuery,
      responses: { 200: { description: '`{run_id, status, outputs, error}`', schema: runOutputs }, 404: NOT_FOUND },
      async handle(ctx, { params }) {
        ctx.body = await runs.outputs(params.run_id);
      },
    }),
    'POST /internal/runs/{run_id}/cancel': route({
      summary: 'Cancels an active run and every active run below it, asked by its holder or by the holder of its parent run: `{reason?}`.',
      params: internalRunPath,
      preValidation: refuseNul,
      body: internalCancelBody,
      responses: { 200: INTERNAL_RUN, 404: NOT_FOUND, 409: FENCED_409, 422: INVALID },
      async handle(ctx, { params, body }) {
        ctx.body = await runs.cancel(params.run_id, holder(ctx), body.reason, ctx.state.audit);
      },
    }),
    'POST /internal/runs/{run_id}/assign-shared-worker': route({
      summary: "Sets the run's shared worker, first writer wins: `{worker_id}` → `{shared_worker_id, assigned}`.",
      params: internalRunPath,
      preValidation: refuseNul,
      body: assignSharedWorkerBody,
      responses: {
        200: { description: 'The shared worker that holds, and whether it is the one named', schema: assignSharedWorkerAnswer },
        404: NOT_FOUND,
        409: FENCED_409,
        422: INVALID,
      },
      async handle(ctx, { params, body }) {
        ctx.body = await runs.assignSharedWorker(params.run_id, holder(ctx), body.worker_id);
      },
    }),
    'POST /internal/runs': route({
      summary:
        "A child run for a `flow.run` step, through the one admission (trigger source `flow`); the headers name the parent's holder, and the parent must be running. A retried request for the same parent step and attempt answers the existing child with 200.",
      preValidation: refuseNul,
      body: childRunBody,
      responses: {
        200: { description: 'The child run made by an earlier request', schema: run },
        201: { description: 'The child run', schema: run },
        400: { description: '`flow_not_committed`, `unknown_device_reference`' },
        404: { description: 'No such parent run (`resource_not_found`), `flow_not_found`, `flow_version_not_found`' },
        409: FENCED_409,
        422: { description: '`validation_failed` (body, headers, `params.<name>`, `targets.<role>`), `too_many_targets`' },
      },
      async handle(ctx, { body }) {
        const { created, run: child } = await children.start(body, holder(ctx), ctx.state.audit);
        ctx.status = created ? 201 : 200;
        if (created) ctx.set('Location', `/runs/${child.id}`);
        ctx.body = child;
      },
    }),
  };
}
