import { z } from 'zod';
import { storableInstant } from './storable-time.js';
import { lowerIfUuid, pathId } from './id-schemas.js';

/** Wire schemas of the audit trail's routes (`/audit-logs…`): the daemon validates and documents with them. */

export const MAX_PAGE = 500;
export const MAX_RETENTION_DAYS = 3650;

// Date-only values count as UTC midnight; a time needs an explicit offset, as local time would depend on the server.
const rangeShape = { since: storableInstant.optional(), until: storableInstant.optional() };

const filterShape = {
  ...rangeShape,
  // Repeated (`?event_type=a&event_type=b`) or a comma list (`?event_type=a,b`).
  event_type: z
    .union([z.string(), z.array(z.string())])
    .transform((value) =>
      [value]
        .flat()
        .flatMap((v) => v.split(','))
        .map((v) => v.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.string().max(100)).min(1).max(50))
    .optional(),
  actor: z.string().min(1).max(255).optional(),
  outcome: z.string().min(1).max(50).optional(),
  org_id: z.uuid().optional(),
};

const pageShape = {
  limit: z
    .string()
    .regex(/^\d{1,4}$/)
    .transform(Number)
    .pipe(z.number().int().min(1).max(MAX_PAGE))
    .default(50),
  cursor: z.string().min(1).max(512).optional(),
};

const ordered = {
  check: (q: { since?: Date | undefined; until?: Date | undefined }) => !(q.since && q.until && q.since > q.until),
  message: { message: 'must not be before since', path: ['until'] },
};

export const auditLogsQuery = z
  .object({
    ...filterShape,
    ...pageShape,
    resource_type: z.string().min(1).max(100).optional(),
    // As the resource path's id: a UUID in capitals names the row the lower-case id was audited under.
    resource_id: z.string().min(1).max(255).transform(lowerIfUuid).optional(),
  })
  .strict()
  .refine(ordered.check, ordered.message);
export const resourceAuditLogsQuery = z
  .object({ ...filterShape, ...pageShape })
  .strict()
  .refine(ordered.check, ordered.message);
export const auditStatsQuery = z.object(rangeShape).strict().refine(ordered.check, ordered.message);

/** `audit_id` stays a string: one that is not a UUID is answered 404, as an unknown one. */
export const auditEntryPath = z.object({ audit_id: pathId });
export const auditResourcePath = z.object({ resource_type: z.string(), resource_id: pathId });

export const cleanupBody = z.object({ older_than_days: z.number().int().min(1).max(MAX_RETENTION_DAYS) }).strict();

export const auditLogEntry = z.object({
  id: z.string(),
  /** Null for a platform-level entry, or once its organization was deleted. */
  org_id: z.string().nullable(),
  ts: z.string(),
  event_type: z.string(),
  actor_sub: z.string().nullable(),
  actor_username: z.string().nullable(),
  resource_type: z.string().nullable(),
  resource_id: z.string().nullable(),
  action: z.string().nullable(),
  outcome: z.string().nullable(),
  details: z.record(z.string(), z.unknown()),
  client_ip: z.string().nullable(),
  user_agent: z.string().nullable(),
});
export type AuditLogEntry = z.infer<typeof auditLogEntry>;

/** A page in keyset order; `next_cursor` is null on the last one. */
export const auditLogPage = z.object({ items: z.array(auditLogEntry), next_cursor: z.string().nullable() });
export type AuditLogPage = z.infer<typeof auditLogPage>;

const tally = z.object({ value: z.string().nullable(), count: z.number().int() });

export const auditFilterOptions = z.object({
  event_types: z.array(tally),
  outcomes: z.array(tally),
  resource_types: z.array(tally),
});

export const auditStats = z.object({
  since: z.string().nullable(),
  until: z.string().nullable(),
  total: z.number().int(),
  oldest: z.string().nullable(),
  newest: z.string().nullable(),
  by_event_type: z.array(tally),
  by_outcome: z.array(tally),
});

export const auditCleanup = z.object({ deleted: z.number().int(), before: z.string() });
