import { z } from 'zod';
import { RUN_STATUSES } from '../run-statuses.js';
import { pageShape, queryNumber } from './query.js';

/** Wire schemas of `GET /dashboard/stats` (`dashboard:view`) and `GET /dashboard/org-health` (`dashboard:org_health`). */

/** A dashboard's window: the last 24 hourly buckets, or the last 7 or 30 daily ones (UTC), the current one included. */
export const DASHBOARD_WINDOWS = ['24h', '7d', '30d'] as const;
export type DashboardWindow = (typeof DASHBOARD_WINDOWS)[number];

export const dashboardStatsQuery = z
  .object({
    window: z.enum(DASHBOARD_WINDOWS).default('24h'),
    /** How many busiest flows (5 unless given, at most 50). */
    top: queryNumber(50).pipe(z.number().min(1)).default(5),
    /** How many recent finished runs and audit entries (10 unless given, at most 50). */
    recent: queryNumber(50).pipe(z.number().min(1)).default(10),
  })
  .strict();

/** A count per run status, every status present (0 when none). */
export const countsByState = z.object(
  Object.fromEntries(RUN_STATUSES.map((s) => [s, z.number().int().min(0)])) as Record<(typeof RUN_STATUSES)[number], z.ZodNumber>,
);

export const runBucket = z.object({
  /** Start of the bucket (an hour or a UTC day). */
  start: z.string(),
  total: z.number().int().min(0),
  by_state: countsByState,
});

export const busiestFlow = z.object({
  flow_id: z.string(),
  /** The flow's name now. */
  flow_name: z.string(),
  runs: z.number().int().min(0),
  succeeded: z.number().int().min(0),
  failed: z.number().int().min(0),
  /** succeeded / (succeeded + failed) of its runs in the window; null when none of them finished so. */
  success_rate: z.number().min(0).max(1).nullable(),
});

export const recentRun = z.object({
  id: z.string(),
  name: z.string(),
  flow_id: z.string().nullable(),
  flow_name: z.string(),
  status: z.enum(RUN_STATUSES),
  trigger_source: z.string(),
  created_at: z.string(),
  finished_at: z.string(),
});

export const recentAuditEntry = z.object({
  id: z.string(),
  ts: z.string(),
  event_type: z.string(),
  action: z.string().nullable(),
  outcome: z.string().nullable(),
  actor_username: z.string().nullable(),
  resource_type: z.string().nullable(),
  resource_id: z.string().nullable(),
});

export const dashboardStatsAnswer = z.object({
  org_id: z.string(),
  window: z.object({
    name: z.enum(DASHBOARD_WINDOWS),
    /** `hour` or `day`. */
    bucket: z.enum(['hour', 'day']),
    from: z.string(),
    to: z.string(),
  }),
  runs: z.object({
    /** Runs created in the window, by their status now. */
    total: z.number().int().min(0),
    by_state: countsByState,
    /** succeeded / (succeeded + failed) of the window's runs; cancelled runs do not count; null when none finished so. */
    success_rate: z.number().min(0).max(1).nullable(),
    /** Runs not finished now, whenever created: queued, running, paused, awaiting approval. */
    active: z.object({ queued: z.number(), running: z.number(), paused: z.number(), awaiting_approval: z.number() }),
    /** Every bucket of the window, oldest first, empty ones included. */
    over_time: z.array(runBucket),
  }),
  busiest_flows: z.array(busiestFlow),
  pending_approvals: z.number().int().min(0),
  /** Live, enabled schedules. */
  active_schedules: z.number().int().min(0),
  recent: z.object({
    /** The organization's last finished runs, newest first. */
    runs: z.array(recentRun),
    /** The organization's last audit entries, newest first; null unless the caller may read the audit log (`audit_log:view`). */
    audit: z.array(recentAuditEntry).nullable(),
  }),
});

export type DashboardStatsQuery = z.infer<typeof dashboardStatsQuery>;
export type DashboardStatsAnswer = z.infer<typeof dashboardStatsAnswer>;
export type CountsByState = z.infer<typeof countsByState>;

export const orgHealthQuery = z
  .object({
    window: z.enum(DASHBOARD_WINDOWS).default('24h'),
    /** Organization slug or name contains. */
    q: z.string().max(255).optional(),
    ...pageShape,
  })
  .strict();

export const orgHealthItem = z.object({
  org_id: z.string(),
  slug: z.string(),
  name: z.string(),
  is_shared: z.boolean(),
  members: z.number().int().min(0),
  /** Live flows. */
  flows: z.number().int().min(0),
  /** Runs created in the window, and of those, how many failed. */
  runs: z.number().int().min(0),
  failed: z.number().int().min(0),
  /** failed / (succeeded + failed) of the window's runs; null when none finished so. */
  failure_rate: z.number().min(0).max(1).nullable(),
  queued_now: z.number().int().min(0),
  running_now: z.number().int().min(0),
  /** The organization's latest run or audit entry, null when it has neither. */
  last_activity_at: z.string().nullable(),
});

export const orgHealthAnswer = z.object({
  window: z.object({ name: z.enum(DASHBOARD_WINDOWS), from: z.string(), to: z.string() }),
  items: z.array(orgHealthItem),
  total: z.number().int().min(0),
  limit: z.number().int(),
  offset: z.number().int(),
});

export type OrgHealthQuery = z.infer<typeof orgHealthQuery>;
export type OrgHealthItem = z.infer<typeof orgHealthItem>;
export type OrgHealthAnswer = z.infer<typeof orgHealthAnswer>;
