import type { Knex } from 'knex';
import type { BucketUnit } from './window.js';

/** One group of the window's runs: by bucket and status, or by flow and status. */
export interface WindowGroupRow {
  readonly bucket: Date | string | null;
  readonly flow_id: string | null;
  readonly status: string;
  readonly n: number;
  /** 0: a bucket's group; 1: a flow's (`GROUPING(flow_id)` is 1 where flow_id was not grouped). */
  readonly by_flow: number;
}

export interface RecentRunRow {
  readonly id: string;
  readonly name: string;
  readonly flow_id: string | null;
  readonly flow_name: string;
  readonly status: string;
  readonly trigger_source: string;
  readonly created_at: Date | string;
  readonly finished_at: Date | string;
}

export interface RecentAuditRow {
  readonly id: string;
  readonly ts: Date | string;
  readonly event_type: string;
  readonly action: string | null;
  readonly outcome: string | null;
  readonly actor_username: string | null;
  readonly resource_type: string | null;
  readonly resource_id: string | null;
}

const ACTIVE = ['queued', 'running', 'paused', 'awaiting_approval'] as const;

/**
 * The dashboard's reads of one organization. Each is one indexed statement: the window's runs from
 * `runs_org_created_stats` (an index-only range scan), the unfinished runs from `runs_org_active`, the
 * last finished from `runs_org_finished`, approvals by `approvals_org_status`, audit by `(org_id, ts)`.
 */
export class DashboardRepo {
  constructor(private readonly knex: Knex) {}

  /**
   * The window's runs grouped twice in one pass: by bucket and status, and by flow and status. The unit
   * is written into the statement (it is one of two words): the same expression must appear in the
   * select list and the grouping, which two bound parameters would not be.
   */
  async windowGroups(orgId: string, from: Date, unit: BucketUnit): Promise<WindowGroupRow[]> {
    const bucket = `date_trunc('${unit === 'hour' ? 'hour' : 'day'}', created_at, 'UTC')`;
    const result = await this.knex.raw<{ rows: WindowGroupRow[] }>(
      `SELECT ${bucket} AS bucket, flow_id, status, count(*)::integer AS n, (1 - GROUPING(flow_id))::integer AS by_flow
         FROM runs WHERE org_id = ? AND created_at >= ? AND deleted_at IS NULL
         GROUP BY GROUPING SETS ((${bucket}, status), (flow_id, status))`,
      [orgId, from],
    );
    return result.rows;
  }

  /** Unfinished live runs by status, whenever created. */
  async activeCounts(orgId: string): Promise<Map<string, number>> {
    const rows: { status: string; n: number }[] = await this.knex('runs')
      .where({ org_id: orgId })
      .whereIn('status', ACTIVE)
      .whereNull('deleted_at')
      .groupBy('status')
      .select('status', this.knex.raw('count(*)::integer AS n'));
    return new Map(rows.map((row) => [row.status, row.n]));
  }

  /** Current names of flows, by id (a purged flow is absent). */
  async flowNames(ids: readonly string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows: { id: string; name: string }[] = await this.knex('flows').whereIn('id', ids).select('id', 'name');
    return new Map(rows.map((row) => [row.id, row.name]));
  }

  async pendingApprovals(orgId: string): Promise<number> {
    return count(this.knex('approvals').where({ org_id: orgId, status: 'pending' }));
  }

  async activeSchedules(orgId: string): Promise<number> {
    return count(this.knex('schedules').where({ org_id: orgId, enabled: true }).whereNull('deleted_at'));
  }

  async recentRuns(orgId: string, limit: number): Promise<RecentRunRow[]> {
    return this.knex('runs')
      .where({ org_id: orgId })
      .whereNotNull('finished_at')
      .whereNull('deleted_at')
      .orderBy('finished_at', 'desc')
      .limit(limit)
      .select('id', 'name', 'flow_id', 'flow_name', 'status', 'trigger_source', 'created_at', 'finished_at');
  }

  async recentAudit(orgId: string, limit: number): Promise<RecentAuditRow[]> {
    return this.knex('audit_logs')
      .where({ org_id: orgId })
      .orderBy('ts', 'desc')
      .limit(limit)
      .select('id', 'ts', 'event_type', 'action', 'outcome', 'actor_username', 'resource_type', 'resource_id');
  }
}

async function count(query: Knex.QueryBuilder): Promise<number> {
  const [row] = (await query.count({ n: '*' })) as { n: string | number }[];
  return Number(row?.n ?? 0);
}
