import type { z } from 'zod';
import {
  auditCleanup,
  auditEntryPath,
  auditFilterOptions,
  auditLogEntry,
  auditLogPage,
  auditLogsQuery,
  auditResourcePath,
  auditStats,
  auditStatsQuery,
  cleanupBody,
  resourceAuditLogsQuery,
} from '../../../shared/api/audit-logs.js';
import { noQuery } from '../../../shared/api/query.js';
import { route } from '../../http/route.js';
import type { DomainRoutes } from '../../http/types.js';
import type { AuditLogFilter } from './audit-log-repo.js';
import type { AuditLogService } from './audit-log-service.js';

function filterOf(
  q: z.output<typeof resourceAuditLogsQuery> & { resource_type?: string | undefined; resource_id?: string | undefined },
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
    'GET /audit-logs': route({
      summary: 'Audit entries, newest first; filters and keyset pagination (`limit`, `cursor`).',
      query: auditLogsQuery,
      responses: { 200: { description: '`items` and `next_cursor`', schema: auditLogPage } },
      async handle(ctx, { query }) {
        ctx.body = await service.list(filterOf(query), { limit: query.limit, cursor: query.cursor });
      },
    }),
    'GET /audit-logs/{audit_id}': route({
      summary: 'One audit entry.',
      params: auditEntryPath,
      query: noQuery,
      responses: { 200: { description: 'The entry', schema: auditLogEntry } },
      async handle(ctx, { params }) {
        ctx.body = await service.get(params.audit_id);
      },
    }),
    'GET /audit-logs/resource/{resource_type}/{resource_id}': route({
      summary: 'Audit entries about one resource, newest first; same filters and pagination as the list.',
      params: auditResourcePath,
      query: resourceAuditLogsQuery,
      responses: { 200: { description: '`items` and `next_cursor`', schema: auditLogPage } },
      async handle(ctx, { params, query }) {
        ctx.body = await service.list(filterOf({ ...query, ...params }), { limit: query.limit, cursor: query.cursor });
      },
    }),
    'GET /audit-logs/filter-options': route({
      summary: 'Distinct event types, outcomes and resource types, with entry counts.',
      query: noQuery,
      responses: { 200: { description: 'Values and counts', schema: auditFilterOptions } },
      async handle(ctx) {
        ctx.body = await service.filterOptions();
      },
    }),
    'GET /audit-logs/stats': route({
      summary: 'Entry counts in total, per event type and per outcome, optionally within `since`/`until`.',
      query: auditStatsQuery,
      responses: { 200: { description: 'Counts', schema: auditStats } },
      async handle(ctx, { query }) {
        ctx.body = await service.stats(query);
      },
    }),
    'POST /audit-logs/cleanup': route({
      summary: 'Delete entries older than `older_than_days`; the cleanup itself is audited.',
      body: cleanupBody,
      responses: { 200: { description: '`deleted` and the cutoff `before`', schema: auditCleanup } },
      async handle(ctx, { body }) {
        ctx.body = await service.cleanup(body.older_than_days, ctx.state.audit);
      },
    }),
  };
}
