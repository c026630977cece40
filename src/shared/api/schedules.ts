import { z } from 'zod';
import { storableTime } from './storable-time.js';
import { pageShape } from './query.js';
import { runName } from './runs.js';
import { stamps } from './stamps.js';
import { pathId, uuid } from './id-schemas.js';

/**
 * Wire schemas of the schedule routes (`/schedules…`) and the external scheduler's internal ones
 * (`/internal/schedules…`). The daemon validates and documents with them; the CLI's types are inferred
 * from them.
 */

export const MISFIRE_POLICIES = ['last', 'none', 'all'] as const;
export type MisfirePolicy = (typeof MISFIRE_POLICIES)[number];

/** A malformed id is no schedule at all (404), so it is a plain string here. */
export const schedulePath = z.object({ schedule_id: pathId });

const cron = z
  .string()
  .trim()
  .min(1)
  .max(255)
  .describe('Five cron fields (minute hour day-of-month month day-of-week) or a nickname (`@hourly`, `@daily`, …)');
const timezone = z.string().min(1).max(64).describe('An IANA time zone; `UTC` unless given');

export const validateCronBody = z.object({ cron, timezone: timezone.optional() }).strict();

export const validateCronAnswer = z.object({
  valid: z.boolean(),
  timezone: z.string(),
  next_runs: z.array(z.string()).describe("The next five fire times, ISO 8601 with the zone's offset"),
  description: z.string().describe('The expression in words'),
});
export type ValidateCronAnswer = z.infer<typeof validateCronAnswer>;

const fields = {
  name: runName,
  description: z.string().max(10_000).nullable(),
  // In lower case (`uuid`): a PATCH's is compared with the schedule's as text, and a retarget drops the pin.
  flow_id: uuid,
  flow_version: z.number().int().min(1).nullable().describe('A pinned committed version; null runs the newest'),
  cron,
  timezone,
  params: z.record(z.string(), z.unknown()),
  targets: z.record(z.string(), z.array(z.guid())).describe('Target role -> device ids'),
  enabled: z.boolean(),
  misfire_policy: z.enum(MISFIRE_POLICIES),
};

export const createScheduleBody = z
  .object({
    ...fields,
    description: fields.description.optional(),
    flow_version: fields.flow_version.optional(),
    timezone: fields.timezone.optional(),
    params: fields.params.optional(),
    targets: fields.targets.optional(),
    enabled: fields.enabled.optional(),
    misfire_policy: fields.misfire_policy.optional(),
  })
  .strict();
export type CreateScheduleBody = z.infer<typeof createScheduleBody>;

/** Any create field; `flow_id` retargets (and drops a pin not restated). */
export const updateScheduleBody = z.object(fields).partial().strict();
export type UpdateScheduleBody = z.infer<typeof updateScheduleBody>;

const bool = z.enum(['true', 'false']);

export const listSchedulesQuery = z
  .object({
    flow_id: uuid.optional(),
    enabled: bool.optional(),
    q: z.string().max(255).optional().describe('Name contains'),
    include_deleted: bool.optional(),
    ...pageShape,
  })
  .strict();

const fireError = z.object({ code: z.string(), message: z.string(), due_at: z.string() });

export const schedule = z.object({
  id: z.string(),
  org_id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  flow_id: z.string().nullable().describe('Null once the flow is purged: every fire then fails'),
  flow_name: z.string().nullable().describe('Null when the flow is gone or soft-deleted'),
  flow_version: z.number().int().nullable(),
  cron: z.string(),
  cron_description: z.string(),
  timezone: z.string(),
  params: z.record(z.string(), z.unknown()),
  targets: z.record(z.string(), z.array(z.string())),
  enabled: z.boolean(),
  misfire_policy: z.enum(MISFIRE_POLICIES),
  next_fire_at: z.string().nullable().describe('Null while disabled or deleted, or when the expression never fires again'),
  last_fired_at: z.string().nullable(),
  last_run_id: z.string().nullable(),
  last_fire_error: fireError.nullable().describe("The newest fire's refusal (its run could not be admitted); null once a fire runs"),
  ...stamps,
});
export type Schedule = z.infer<typeof schedule>;

export const scheduleList = z.object({
  items: z.array(schedule),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});
export type ScheduleList = z.infer<typeof scheduleList>;

export const dueSchedulesQuery = z.object({ limit: pageShape.limit }).strict();

export const dueSchedules = z.object({
  now: z.string(),
  items: z.array(z.object({ schedule_id: z.string(), org_id: z.string(), due_at: z.string(), misfire_policy: z.enum(MISFIRE_POLICIES) })),
});
export type DueSchedules = z.infer<typeof dueSchedules>;

export const triggerScheduleBody = z
  .object({ due_at: storableTime.describe("The schedule's `next_fire_at` as read: the fence of the fire") })
  .strict();

export const FIRE_OUTCOMES = ['fired', 'failed', 'lost'] as const;

/** What one look at a due schedule did: the fires it made (catch-up may make several), skipped times, the next fire time. */
export const fireReport = z.object({
  schedule_id: z.string(),
  fires: z.array(
    z.object({
      due_at: z.string(),
      outcome: z.enum(FIRE_OUTCOMES).describe('`lost`: another scheduler fired this due time first'),
      run_id: z.string().nullable(),
      error: z.object({ code: z.string(), message: z.string() }).nullable(),
    }),
  ),
  skipped: z.object({ from: z.string(), to: z.string() }).nullable().describe('Missed fire times skipped by the misfire policy'),
  next_fire_at: z.string().nullable(),
});
export type FireReport = z.infer<typeof fireReport>;
