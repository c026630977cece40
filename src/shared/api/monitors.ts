import { z } from 'zod';
import { storableTime } from './storable-time.js';
import { queryNumber } from './query.js';
import { pathId } from './id-schemas.js';

/**
 * Wire schemas of run monitors: the worker's ingestion under `/api/v1/monitors` (`internal:monitor_callbacks`,
 * `X-Internal-Token`; the writes fenced by `X-Worker-Id` / `X-Run-Attempt` as the run callbacks are) and
 * the reads under `/runs/{run_id}/monitors` (`run:view`) with the live stream. docs/monitors.md.
 */

export const MONITOR_STATUSES = ['open', 'closed'] as const;

/** The most samples one batch may hold (413 `monitor_batch_too_large`, checked before the items). */
export const MAX_SAMPLES_PER_BATCH = 1000;
/** The largest one sample's `data` may be, as JSON (413 `monitor_sample_too_large`). */
export const MAX_SAMPLE_DATA_BYTES = 4096;
/** The largest a monitor's `summary` may be, as JSON (422 `validation_failed` at `summary`). */
export const MAX_SUMMARY_BYTES = 16 * 1024;
export const MAX_SAMPLES_PAGE = 5000;
/** The highest seq a sample may have: what `after` (seven digits, as every cursor of the API) can page past. */
export const MAX_SAMPLE_SEQ = 9_999_999;

const jsonObject = z.record(z.string(), z.unknown());

const stepId = z.string().regex(/^[a-z][a-z0-9_]{0,63}$/);
const small = (max: number) => z.string().min(1).max(max);
const boundedObject = (max: number) =>
  jsonObject.refine((value) => Buffer.byteLength(JSON.stringify(value)) <= max, `at most ${max} bytes as JSON`);

export const monitorDbPath = z.object({ monitor_db_id: pathId });
export const runMonitorPath = z.object({ run_id: pathId, monitor_id: pathId });
export const finalizePath = z.object({ run_id: pathId });

/** The worker opens a monitor for the run it holds; its `monitor_key` names it within the run (a retry finds the first). */
export const createMonitorBody = z
  .object({
    run_id: z.guid(),
    monitor_key: small(128).regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]*$/, 'letters, digits and _ . : -'),
    name: small(255).optional(),
    step_id: stepId.nullable().optional(),
    /** What it measures, e.g. `connectivity.tcp_connect`. */
    kind: z.string().regex(/^[a-z][a-z0-9_.]{0,63}$/),
    target: small(255).nullable().optional(),
    unit: small(32).nullable().optional(),
  })
  .strict();

/** What the worker updates: its summary of the series, names, and closing it (a closed monitor takes nothing more). */
export const patchMonitorBody = z
  .object({
    name: small(255).optional(),
    target: small(255).nullable().optional(),
    unit: small(32).nullable().optional(),
    summary: boundedObject(MAX_SUMMARY_BYTES).optional(),
    status: z.literal('closed').optional(),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, 'at least one field');

export const monitorSample = z.object({
  /** The worker's sequence number within the monitor, from 1: a retried sample is recognised by it. */
  seq: z.number().int(),
  ts: z.string(),
  value: z.number().nullable(),
  status: z.string().nullable(),
  data: jsonObject,
});
export type MonitorSample = z.infer<typeof monitorSample>;

export const monitor = z.object({
  id: z.string(),
  run_id: z.string(),
  org_id: z.string(),
  monitor_key: z.string(),
  name: z.string(),
  step_id: z.string().nullable(),
  kind: z.string(),
  target: z.string().nullable(),
  unit: z.string().nullable(),
  status: z.enum(MONITOR_STATUSES),
  summary: jsonObject,
  sample_count: z.number().int(),
  /** The highest `seq` stored, and that sample. */
  last_seq: z.number().int().nullable(),
  last_sample: monitorSample.nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  closed_at: z.string().nullable(),
});
export type Monitor = z.infer<typeof monitor>;

export const sampleInput = z
  .object({
    monitor_id: z.string().min(1).max(64),
    /** From 1, per monitor: a retried sample is recognised by it. At most MAX_SAMPLE_SEQ (the paging cursor's range). */
    seq: z.number().int().min(1).max(MAX_SAMPLE_SEQ),
    /** When it was taken on the worker; the daemon's clock when absent. */
    ts: storableTime.optional(),
    value: z.number().nullable().optional(),
    status: small(32).nullable().optional(),
    data: jsonObject.optional(),
  })
  .strict();
export type SampleInput = z.infer<typeof sampleInput>;

/** The batch's size is checked before its items: more than MAX_SAMPLES_PER_BATCH answers 413 `monitor_batch_too_large`. */
export const sampleBatchBody = z.object({ samples: z.array(sampleInput).min(1) }).strict();

export const sampleBatchAnswer = z.object({
  /** Samples stored by this batch. */
  accepted: z.number().int(),
  /** Samples already stored (the same monitor and seq), or repeated within the batch: not stored again. */
  duplicates: z.number().int(),
});

export const finalizeAnswer = z.object({
  /** The monitors this call closed (those already closed are not listed). */
  closed: z.array(z.string()),
});

export const monitorList = z.object({ items: z.array(monitor) });

/**
 * A monitor's samples by seq: `after` (a seq, 0 from the start), `from` / `to` (a time window on `ts`,
 * `from` inclusive, `to` exclusive), `limit` (500, ≤ 5000).
 */
export const samplesQuery = z
  .object({
    after: queryNumber(MAX_SAMPLE_SEQ).default(0),
    from: storableTime.optional(),
    to: storableTime.optional(),
    limit: queryNumber(MAX_SAMPLES_PAGE).pipe(z.number().min(1)).default(500),
  })
  .strict()
  .refine((q) => q.from === undefined || q.to === undefined || Date.parse(q.from) < Date.parse(q.to), {
    message: '`to` must be after `from`',
    path: ['to'],
  });

export const samplesPage = z.object({
  items: z.array(monitorSample),
  /** The next page's `after` (the last item's seq), or null when nothing more matches. */
  next_after: z.number().int().nullable(),
});

/** One frame of the run's monitor stream: `id:` its position in the stream (`seq`), `event: monitor.sample`. */
export const monitorStreamFrame = z.object({
  seq: z.number().int(),
  type: z.literal('monitor.sample'),
  monitor_id: z.string(),
  monitor_key: z.string(),
  sample_seq: z.number().int(),
  ts: z.string(),
  value: z.number().nullable(),
  status: z.string().nullable(),
  data: jsonObject,
});
export type MonitorStreamFrame = z.infer<typeof monitorStreamFrame>;

/** The stream's answer as OpenAPI documents it: server-sent events. */
export const monitorStreamText = z.string();
