import { dashboardStatsAnswer, dashboardStatsQuery, orgHealthAnswer, orgHealthQuery } from '../../../shared/api/dashboard.js';
import { CATALOGUE } from '../../../shared/catalogue/catalogue.js';
import type { Explainer } from '../../authz/explain.js';
import { route } from '../../http/route.js';
import type { DomainRoutes } from '../../http/types.js';
import { actorOf } from '../inventory/request.js';
import type { OrgHealthService } from './org-health-service.js';
import type { StatsService } from './stats-service.js';

/** The route whose decision says whether a caller may read the organization's audit entries (`audit_log:view`). */
const AUDIT_LOG_LIST = CATALOGUE.routeByKey.get('GET /audit-logs')!;

/** `dashboard:view` (the active organization's figures) and `dashboard:org_health` (every organization's; platform admins); docs/dashboard.md. */
export function dashboardRoutes(stats: StatsService, orgHealth: OrgHealthService, explainer: Explainer): DomainRoutes {
  return {
    'GET /dashboard/stats': route({
      summary:
        "The active organization's runs over a window (`window`: `24h` in hourly buckets, `7d` or `30d` in UTC days; the current bucket last): counts by state, each bucket by state, the success rate (succeeded / (succeeded + failed)), the `top` busiest flows (5, ≤ 50) with theirs; the unfinished runs now, pending approvals, active schedules, and the `recent` (10, ≤ 50) finished runs and audit entries (`null` unless the caller may read the audit log).",
      query: dashboardStatsQuery,
      responses: { 200: { description: 'The figures', schema: dashboardStatsAnswer } },
      async handle(ctx, { query }) {
        const orgId = actorOf(ctx).org.id;
        // Audit entries only to whom the audit log itself would answer, overrides included: the dashboard
        // is a viewer's, the audit log an admin's.
        const [auditRead] = await explainer.explainMany([AUDIT_LOG_LIST], {
          principal: ctx.state.auth?.principal,
          orgRef: orgId,
          tokenOrgId: ctx.state.auth?.pat?.orgId,
        });
        ctx.body = await stats.stats(orgId, query, auditRead!.allowed);
      },
    }),
    'GET /dashboard/org-health': route({
      summary:
        'Every organization by slug (`q`: slug or name contains; `limit` 50, ≤ 500, `offset`): members, live flows, runs created in the `window` (24h, 7d, 30d) and how many failed, the failure rate, queued and running runs now, and its last activity (latest run or audit entry).',
      query: orgHealthQuery,
      responses: { 200: { description: '`window`, `items`, `total`, `limit`, `offset`', schema: orgHealthAnswer } },
      async handle(ctx, { query }) {
        ctx.body = await orgHealth.page(query);
      },
    }),
  };
}
