import type { CountsByState, DashboardStatsAnswer, DashboardStatsQuery } from '../../../shared/api/dashboard.js';
import { RUN_STATUSES } from '../../../shared/run-statuses.js';
import type { DashboardRepo, WindowGroupRow } from './dashboard-repo.js';
import { resolveWindow } from './window.js';

export type Clock = () => Date;

const iso = (value: Date | string) => new Date(value).toISOString();

function emptyCounts(): CountsByState {
  return Object.fromEntries(RUN_STATUSES.map((status) => [status, 0])) as CountsByState;
}

/** succeeded / (succeeded + failed); cancelled runs were stopped by someone, neither a success nor a failure. */
export function successRate(succeeded: number, failed: number): number | null {
  return succeeded + failed === 0 ? null : succeeded / (succeeded + failed);
}

function add(counts: CountsByState, status: string, n: number): void {
  if (status in counts) counts[status as keyof CountsByState] += n;
}

/**
 * `GET /dashboard/stats` for the active organization: the window's runs (by state, over time, by flow)
 * from one grouped statement, and the small reads beside it, run together.
 */
export class StatsService {
  constructor(
    private readonly repo: DashboardRepo,
    private readonly clock: Clock,
  ) {}

  /** `withAudit`: whether the caller may read the organization's audit entries (else `recent.audit` is null). */
  async stats(orgId: string, query: DashboardStatsQuery, withAudit: boolean): Promise<DashboardStatsAnswer> {
    const window = resolveWindow(query.window, this.clock());
    const [groups, active, pendingApprovals, activeSchedules, recentRuns, recentAudit] = await Promise.all([
      this.repo.windowGroups(orgId, window.from, window.unit),
      this.repo.activeCounts(orgId),
      this.repo.pendingApprovals(orgId),
      this.repo.activeSchedules(orgId),
      this.repo.recentRuns(orgId, query.recent),
      withAudit ? this.repo.recentAudit(orgId, query.recent) : null,
    ]);
    const byState = emptyCounts();
    const buckets = new Map(
      window.buckets.map((start) => [start.getTime(), { start: start.toISOString(), total: 0, by_state: emptyCounts() }]),
    );
    for (const row of groups.filter((g) => g.by_flow === 0)) {
      add(byState, row.status, row.n);
      const bucket = buckets.get(new Date(row.bucket!).getTime());
      if (!bucket) continue;
      bucket.total += row.n;
      add(bucket.by_state, row.status, row.n);
    }
    const total = Object.values(byState).reduce((sum, n) => sum + n, 0);
    return {
      org_id: orgId,
      window: { name: window.name, bucket: window.unit, from: window.from.toISOString(), to: window.to.toISOString() },
      runs: {
        total,
        by_state: byState,
        success_rate: successRate(byState.succeeded, byState.failed),
        active: {
          queued: active.get('queued') ?? 0,
          running: active.get('running') ?? 0,
          paused: active.get('paused') ?? 0,
          awaiting_approval: active.get('awaiting_approval') ?? 0,
        },
        over_time: [...buckets.values()],
      },
      busiest_flows: await this.#busiest(
        groups.filter((g) => g.by_flow === 1 && g.flow_id !== null),
        query.top,
      ),
      pending_approvals: pendingApprovals,
      active_schedules: activeSchedules,
      recent: {
        runs: recentRuns.map((row) => ({
          id: row.id,
          name: row.name,
          flow_id: row.flow_id,
          flow_name: row.flow_name,
          status: row.status as (typeof RUN_STATUSES)[number],
          trigger_source: row.trigger_source,
          created_at: iso(row.created_at),
          finished_at: iso(row.finished_at),
        })),
        audit: recentAudit?.map((row) => ({ ...row, ts: iso(row.ts) })) ?? null,
      },
    };
  }

  /** The top flows by runs in the window (ties by id, for a stable order), named as the flows are named now. */
  async #busiest(rows: readonly WindowGroupRow[], top: number): Promise<DashboardStatsAnswer['busiest_flows']> {
    const flows = new Map<string, { runs: number; succeeded: number; failed: number }>();
    for (const row of rows) {
      const flow = flows.get(row.flow_id!) ?? { runs: 0, succeeded: 0, failed: 0 };
      flow.runs += row.n;
      if (row.status === 'succeeded') flow.succeeded += row.n;
      if (row.status === 'failed') flow.failed += row.n;
      flows.set(row.flow_id!, flow);
    }
    const chosen = [...flows.entries()].sort(([a, x], [b, y]) => y.runs - x.runs || (a < b ? -1 : 1)).slice(0, top);
    const names = await this.repo.flowNames(chosen.map(([id]) => id));
    return chosen.map(([id, flow]) => ({
      flow_id: id,
      flow_name: names.get(id) ?? '',
      ...flow,
      success_rate: successRate(flow.succeeded, flow.failed),
    }));
  }
}
