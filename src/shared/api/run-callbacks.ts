import { z } from 'zod';
import { storableTime } from './storable-time.js';
import { RUN_STATUSES } from '../run-statuses.js';
import { pathId } from './id-schemas.js';

/**
 * Wire schemas of the worker's run callbacks (`/internal/runs…`, `/internal/step-runs…`). Every mutating
 * callback names its worker and attempt in the headers `X-Worker-Id` and `X-Run-Attempt`; a worker that
 * no longer holds that attempt of the run gets 409 `run_not_held`.
 */

export const WORKER_ID_HEADER = 'x-worker-id';
export const RUN_ATTEMPT_HEADER = 'x-run-attempt';

/**
 * The fencing headers as the daemon reads them: the worker's id and the attempt it holds (a positive
 * decimal integer). Missing or malformed: 422 `validation_failed` at `headers.x-worker-id` /
 * `headers.x-run-attempt`.
 */
export const holderHeaders = z.object({
  [WORKER_ID_HEADER]: z.string().min(1).max(255),
  [RUN_ATTEMPT_HEADER]: z.string().regex(/^[1-9][0-9]{0,8}$/, 'a positive integer'),
});

export const internalRunPath = z.object({ run_id: pathId });
export const stepRunPath = z.object({ step_run_id: pathId });

/** A step's id in a definition. */
const stepId = z.string().regex(/^[a-z][a-z0-9_]{0,63}$/);
const jsonObject = z.record(z.string(), z.unknown());
const errorInfo = z.object({ code: z.string().max(64), message: z.string().max(4000) }).catchall(z.unknown());

/** The run as a worker reads it (`GET /internal/runs/{run_id}`): its state, what it holds and produced. */
export const internalRun = z.object({
  id: z.string(),
  org_id: z.string(),
  workflow_id: z.string(),
  name: z.string(),
  status: z.enum(RUN_STATUSES),
  flow_id: z.string().nullable(),
  flow_version: z.number().int(),
  worker_id: z.string().nullable(),
  attempt: z.number().int(),
  lease_expires_at: z.string().nullable(),
  params: jsonObject,
  targets: z.record(z.string(), z.array(z.string())),
  run_vars: jsonObject,
  outputs: jsonObject,
  error: jsonObject.nullable(),
  parent_run_id: z.string().nullable(),
  parent_step_id: z.string().nullable(),
  shared_worker_id: z.string().nullable(),
  event_seq: z.number().int(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
});
export type InternalRun = z.infer<typeof internalRun>;

/** The worker ends the run, from running or paused: the only transitions it causes through this route. */
export const patchInternalRunBody = z
  .object({
    status: z.enum(['succeeded', 'failed']),
    outputs: jsonObject.optional(),
    error: errorInfo.optional(),
  })
  .strict();

export const MAX_EVENTS_PER_BATCH = 500;
/** The largest one event may be, as JSON (413 `event_too_large`). */
export const MAX_EVENT_BYTES = 64 * 1024;

const eventType = z.string().regex(/^[a-z][a-z0-9_.]{0,63}$/);

export const workerEvent = z
  .object({
    /** The worker's own sequence for this attempt of the run, from 1: a retried batch is recognised by it. */
    worker_seq: z.number().int().min(1),
    type: eventType,
    step_id: stepId.optional(),
    /** When it happened on the worker; the daemon's clock when absent. */
    ts: storableTime.optional(),
    data: jsonObject.optional(),
  })
  .strict();

/** The batch's size is checked before its items: more than MAX_EVENTS_PER_BATCH answers 413 `event_batch_too_large`. */
export const eventBatchBody = z.object({ events: z.array(workerEvent).min(1) }).strict();

export const eventBatchAnswer = z.object({
  accepted: z.number().int(),
  duplicates: z.number().int(),
  /** The run's last sequence number after the batch. */
  last_seq: z.number().int(),
});

export const STEP_RUN_STATUSES = ['pending', 'running', 'succeeded', 'failed', 'skipped', 'cancelled'] as const;

export const createStepRunBody = z
  .object({
    step_id: stepId,
    handler: z.string().min(1).max(128),
    status: z.enum(['pending', 'running', 'skipped']).default('running'),
  })
  .strict();

export const patchStepRunBody = z
  .object({
    status: z.enum(['running', 'succeeded', 'failed', 'skipped', 'cancelled']),
    summary: z.string().max(1000).optional(),
    outputs: jsonObject.optional(),
    error: errorInfo.optional(),
  })
  .strict();

export const stepRun = z.object({
  id: z.string(),
  run_id: z.string(),
  attempt: z.number().int(),
  step_id: z.string(),
  handler: z.string(),
  status: z.enum(STEP_RUN_STATUSES),
  summary: z.string().nullable(),
  outputs: jsonObject,
  error: jsonObject.nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
});

/** Outputs of the run's succeeded steps in its current attempt, by step id. */
export const stepOutputs = z.object({ steps: z.record(z.string(), jsonObject) });

/** Replaces the run's variables (merge is the worker's to do: it holds the run). */
export const runVarsBody = z.object({ run_vars: jsonObject }).strict();
export const runVarsAnswer = z.object({ run_vars: jsonObject });

/** `GET /internal/runs/{run_id}/outputs`: a (child) run's status and outputs, which a parent's `flow.run` mirrors. */
export const runOutputs = z.object({ run_id: z.string(), status: z.enum(RUN_STATUSES), outputs: jsonObject, error: jsonObject.nullable() });
export type RunOutputs = z.infer<typeof runOutputs>;

/** The worker cancels the run itself (a step decided so, or a child run of a cancelled parent). */
export const internalCancelBody = z.object({ reason: z.string().max(1000).optional() }).strict();

export const assignSharedWorkerBody = z.object({ worker_id: z.string().min(1).max(255) }).strict();
export const assignSharedWorkerAnswer = z.object({ shared_worker_id: z.string(), assigned: z.boolean() });
export type AssignSharedWorkerAnswer = z.infer<typeof assignSharedWorkerAnswer>;

/** `POST /internal/runs`: a child run for a `flow.run` step, through the one admission (trigger source `flow`). */
export const childRunBody = z
  .object({
    parent_run_id: z.guid(),
    parent_step_id: stepId,
    /** Exactly one of `flow_id` and `flow_name` (the newest live flow of that name). */
    flow_id: z.guid().optional(),
    flow_name: z.string().min(1).max(255).optional(),
    version: z.number().int().min(1).nullable().optional(),
    params: jsonObject.optional(),
    targets: z.record(z.string(), z.array(z.guid())).optional(),
    name: z.string().trim().min(1).max(255).optional(),
  })
  .strict()
  .refine((b) => (b.flow_id === undefined) !== (b.flow_name === undefined), {
    message: 'give exactly one of flow_id and flow_name',
    path: ['flow_id'],
  });
