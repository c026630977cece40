import { z } from 'zod';
import type { DomainRoutes } from '../../http/types.js';
import { validate } from '../../http/validate.js';
import type { AuditLogFilter } from './audit-log-repo.js';
import type { AuditLogService } from './audit-log-service.js';

export const MAX_PAGE = 500;
export const MAX_RETENTION_DAYS = 3650;

// Date-only values count as UTC midnight; a time needs an explicit offset, as local time would depend on the server.
const instant = z.union([z.iso.datetime({ offset: true }), z.iso.date()]).transform((value) => new Date(value));

const rangeShape = { since: instant.optional(), until: instant.optional() };

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

const listQuery = z
  .object({
    ...filterShape,
    ...pageShape,
    resource_type: z.string().min(1).max(100).optional(),
    resource_id: z.string().min(1).max(255).optional(),
  })
  .strict()
  .refine(ordered.check, ordered.message);
const resourceQuery = z
  .object({ ...filterShape, ...pageShape })
  .strict()
  .refine(ordered.check, ordered.message);
const statsQuery = z.object(rangeShape).strict().refine(ordered.check, ordered.message);
const noQuery = z.object({}).strict();

export const cleanupBody = z.object({ older_than_days: z.number().int().min(1).max(MAX_RETENTION_DAYS) }).strict();

function filterOf(
  q: z.output<typeof resourceQuery> & { resource_type?: string | undefined; resource_id?: string | undefined },
): AuditLogFilter {
  return {
    eventTypes: q.event_type,
    actor: q.actor,
    outcome: q.outcome,
    orgId: q.org_id,
    since: q.since,
    until: q.until,
    resourceType: q.resource_type,
    resourceId: q.resource_id,
  };
}

/** The audit trail (`audit_log:view`, `audit_log:cleanup`); the service records the cleanup through its own writer. */
export function auditLogRoutes(service: AuditLogService): DomainRoutes {
  return {
    'GET /audit-logs': {
      docs: {
        summary: 'Audit entries, newest first; filters and keyset pagination (`limit`, `cursor`).',
        responses: { 200: { description: '`items` and `next_cursor`' } },
      },
      async handle(ctx) {
        const q = validate(listQuery, ctx.query);
        ctx.body = await service.list(filterOf(q), { limit: q.limit, cursor: q.cursor });
      },
    },
    'GET /audit-logs/{audit_id}': {
      docs: { summary: 'One audit entry.', responses: { 200: { description: 'The entry' } } },
      async handle(ctx) {
        validate(noQuery, ctx.query);
        ctx.body = await service.get(ctx.state.params.audit_id!);
      },
    },
    'GET /audit-logs/resource/{resource_type}/{resource_id}': {
      docs: {
        summary: 'Audit entries about one resource, newest first; same filters and pagination as the list.',
        responses: { 200: { description: '`items` and `next_cursor`' } },
      },
      async handle(ctx) {
        const q = validate(resourceQuery, ctx.query);
        const { resource_type, resource_id } = ctx.state.params;
        ctx.body = await service.list(filterOf({ ...q, resource_type, resource_id }), { limit: q.limit, cursor: q.cursor });
      },
    },
    'GET /audit-logs/filter-options': {
      docs: {
        summary: 'Distinct event types, outcomes and resource types, with entry counts.',
        responses: { 200: { description: 'Values and counts' } },
      },
      async handle(ctx) {
        validate(noQuery, ctx.query);
        ctx.body = await service.filterOptions();
      },
    },
    'GET /audit-logs/stats': {
      docs: {
        summary: 'Entry counts in total, per event type and per outcome, optionally within `since`/`until`.',
        responses: { 200: { description: 'Counts' } },
      },
      async handle(ctx) {
        ctx.body = await service.stats(validate(statsQuery, ctx.query));
      },
    },
    'POST /audit-logs/cleanup': {
      docs: {
        summary: 'Delete entries older than `older_than_days`; the cleanup itself is audited.',
        responses: { 200: { description: '`deleted` and the cutoff `before`' } },
      },
      async handle(ctx) {
        const body = validate(cleanupBody, ctx.state.body);
        ctx.body = await service.cleanup(body.older_than_days, ctx.state.audit);
      },
    },
  };
}
