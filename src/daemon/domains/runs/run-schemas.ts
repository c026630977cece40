import { z } from 'zod';
import { TRIGGER_SOURCES } from './run-admission.js';
import { RUN_STATUSES } from './run-view.js';

export const MAX_PAGE = 500;
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

/** A run's label: trimmed, 1-255 characters, no control characters. */
export const runName = z
  .string()
  .trim()
  .min(1)
  .refine((v) => [...v].length <= 255, 'must be at most 255 characters')
  .refine((v) => !CONTROL_CHARS.test(v), 'must not contain control characters');

const deviceId = z.guid();

export const triggerBody = z
  .object({
    flow_id: z.guid(),
    /** A committed version; absent or null runs the newest. */
    version: z.number().int().min(1).nullable().optional(),
    params: z.record(z.string(), z.unknown()).optional(),
    /** Target role -> device ids (the organization's or the shared organization's). */
    targets: z.record(z.string(), z.array(deviceId)).optional(),
    name: runName.optional(),
  })
  .strict();

export const triggerQuery = z.object({ force: z.enum(['true', 'false']).optional() }).strict();

export const renameBody = z.object({ name: runName }).strict();

const page = (max: number) =>
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

const instant = z.union([z.iso.datetime({ offset: true }), z.iso.date()]).transform((v) => new Date(v));

export const listQuery = z
  .object({
    status: listOf(RUN_STATUSES).optional(),
    flow_id: z.guid().optional(),
    trigger_source: listOf(TRIGGER_SOURCES).optional(),
    created_after: instant.optional(),
    created_before: instant.optional(),
    q: z.string().max(255).optional(),
    include_deleted: z.enum(['true', 'false']).optional(),
    limit: page(MAX_PAGE).pipe(z.number().min(1)).default(50),
    offset: page(10_000_000).default(0),
  })
  .strict();

export const noQuery = z.object({}).strict();
