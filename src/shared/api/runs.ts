import { z } from 'zod';
import { storableInstant } from './storable-time.js';
import { RUN_STATUSES } from '../run-statuses.js';
import { pathId } from './id-schemas.js';

/** Wire schemas of the run routes (`/runs…`): the daemon validates and documents with them; a client's types are inferred from them. */

/** `flow`: a child run started by a parent run's `flow.run` step. */
export const TRIGGER_SOURCES = ['manual', 'schedule', 'webhook', 'flow'] as const;
export type TriggerSource = (typeof TRIGGER_SOURCES)[number];

const MAX_PAGE = 500;
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

/** A run's label (and a schedule's): trimmed, 1-255 characters, no control characters. */
export const runName = z
  .string()
  .trim()
  .min(1)
  .refine((v) => [...v].length <= 255, 'must be at most 255 characters')
  .refine((v) => !CONTROL_CHARS.test(v), 'must not contain control characters');

/** A malformed id is no run at all (404), so it is a plain string here. */
export const runPath = z.object({ run_id: pathId });

export const triggerRunBody = z
  .object({
    flow_id: z.guid(),
    /** A committed version; absent or null runs the newest. */
    version: z.number().int().min(1).nullable().optional(),
    params: z.record(z.string(), z.unknown()).optional(),
    /** Target role -> device ids (the organization's or the shared organization's). */
    targets: z.record(z.string(), z.array(z.guid())).optional(),
    name: runName.optional(),
  })
  .strict();

export const triggerRunQuery = z.object({ force: z.enum(['true', 'false']).optional() }).strict();

export const renameRunBody = z.object({ name: runName }).strict();

const count = (max: number) =>
  z
    .string()
    .regex(/^\d{1,7}$/)
    .transform(Number)
    .pipe(z.number().int().min(0).max(max));

/** A comma-separated list (or the parameter repeated) of values of `values`. */
function listOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z
    .union([z.string(), z.array(z.string())])
    .transform((v) =>
      [v]
        .flat()
        .flatMap((s) => s.split(','))
        .map((s) => s.trim())
        .filter((s) => s !== ''),
    )
    .pipe(z.array(z.enum(values)));
}

export const runListQuery = z
  .object({
    status: listOf(RUN_STATUSES).optional(),
    flow_id: z.guid().optional(),
    trigger_source: listOf(TRIGGER_SOURCES).optional(),
    created_after: storableInstant.optional(),
    created_before: storableInstant.optional(),
    q: z.string().max(255).optional(),
    include_deleted: z.enum(['true', 'false']).optional(),
    limit: count(MAX_PAGE).pipe(z.number().min(1)).default(50),
    offset: count(10_000_000).default(0),
  })
  .strict();

export const noQuery = z.object({}).strict();

/** A run on the wire: `GET /runs/{run_id}`, list items, and what admission answers. */
export const run = z.object({
  id: z.string(),
  org_id: z.string(),
  name: z.string(),
  /** Null once the flow is purged: the run keeps its snapshot (`flow_name`, `flow_version`). */
  flow_id: z.string().nullable(),
  flow_name: z.string(),
  flow_version: z.number().int(),
  status: z.enum(RUN_STATUSES),
  params: z.record(z.string(), z.unknown()),
  /** Target role -> device ids. */
  targets: z.record(z.string(), z.array(z.string())),
  trigger_source: z.enum(TRIGGER_SOURCES),
  trigger_details: z.record(z.string(), z.unknown()),
  workflow_id: z.string(),
  created_by: z.string().nullable(),
  updated_by: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  started_at: z.string().nullable(),
  paused_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  cancelled_at: z.string().nullable(),
  cancelled_by: z.string().nullable(),
  deleted_at: z.string().nullable(),
  deleted_by: z.string().nullable(),
  /** What the run produced (its flow's outputs), `{}` until its worker ends it. */
  outputs: z.record(z.string(), z.unknown()),
  /** Why it failed (`code`, and as its failure has them `message`, `step_id`, …); null unless it failed with a reason. */
  error: z.record(z.string(), z.unknown()).nullable(),
});
export type Run = z.infer<typeof run>;

export const runList = z.object({ items: z.array(run), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });

/** The values the organization's live runs hold, for list filters. */
export const runFilterOptions = z.object({
  /** Each flow with the name its newest run recorded. */
  flows: z.array(z.object({ id: z.string(), name: z.string() })),
  statuses: z.array(z.enum(RUN_STATUSES)),
  trigger_sources: z.array(z.enum(TRIGGER_SOURCES)),
});
export type RunFilterOptions = z.infer<typeof runFilterOptions>;
