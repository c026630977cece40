import type { Knex } from 'knex';
import type { RunFilterOptions } from '../../../shared/api/runs.js';
import { pageWithTotal } from '../../db/page.js';
import { SoftDeleteTable, whereLive } from '../../db/soft-delete.js';
import type { TriggerSource } from './run-admission.js';
import { RUN_COLUMNS, type RunRow, type RunStatus } from './run-view.js';

export type RunsTx = Knex.Transaction;

export interface RunFilter {
  readonly statuses?: readonly RunStatus[] | undefined;
  readonly flowId?: string | undefined;
  readonly triggerSources?: readonly TriggerSource[] | undefined;
  readonly createdAfter?: Date | undefined;
  readonly createdBefore?: Date | undefined;
  /** Contained in the name, case-insensitive. */
  readonly q?: string | undefined;
  readonly includeDeleted: boolean;
  readonly limit: number;
  readonly offset: number;
}

/** What `GET /runs/filter-options` answers. */
export type FilterOptions = RunFilterOptions;

/** The columns a control route may change; `updated_at` is always stamped. */
export type RunChange = Partial<Pick<RunRow, 'status' | 'name' | 'updated_by' | 'cancelled_by'>> & {
  readonly paused_at?: 'now' | null;
  readonly finished_at?: 'now';
  readonly cancelled_at?: 'now';
};

/** A run cancelled with its ancestor: what it was before, and the run that started it. */
export type CancelledDescendant = RunRow & { readonly previous_status: RunStatus; readonly parent_run_id: string };

const RUNS = new SoftDeleteTable<RunRow>('runs', RUN_COLUMNS);

/** The list's order, which the index `runs_org_created` (org_id, created_at DESC, id DESC) holds. */
const NEWEST_FIRST = [
  { column: 'created_at', order: 'desc' },
  { column: 'id', order: 'desc' },
] as const;

function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Runs of one organization: the reads of the list routes and the writes of the control routes. */
export class RunsRepo {
  constructor(private readonly knex: Knex) {}

  transaction<T>(work: (trx: RunsTx) => Promise<T>): Promise<T> {
    return this.knex.transaction(work);
  }

  /** Work that needs the database handle but no transaction (a single-statement write). */
  direct<T>(work: (db: Knex) => Promise<T>): Promise<T> {
    return work(this.knex);
  }

  async list(orgId: string, filter: RunFilter): Promise<{ rows: RunRow[]; total: number }> {
    const base = this.knex('runs').where('org_id', orgId);
    if (!filter.includeDeleted) whereLive(base);
    if (filter.statuses?.length) base.whereIn('status', filter.statuses);
    if (filter.flowId) base.where('flow_id', filter.flowId);
    if (filter.triggerSources?.length) base.whereIn('trigger_source', filter.triggerSources);
    if (filter.createdAfter) base.where('created_at', '>=', filter.createdAfter);
    if (filter.createdBefore) base.where('created_at', '<', filter.createdBefore);
    if (filter.q) base.whereRaw(`name ILIKE ? ESCAPE '\\'`, [`%${escapeLike(filter.q)}%`]);
    return pageWithTotal<RunRow>(this.knex, base, RUN_COLUMNS, NEWEST_FIRST, filter);
  }

  /** A run of the organization; a soft-deleted one only when `includeDeleted`. */
  async get(orgId: string, id: string, includeDeleted = false): Promise<RunRow | undefined> {
    const query = this.knex('runs').where({ id, org_id: orgId });
    if (!includeDeleted) whereLive(query);
    return query.first(RUN_COLUMNS);
  }

  /** A run of the organization (soft-deleted or not), locked for the rest of the transaction. */
  async lock(trx: RunsTx, orgId: string, id: string): Promise<RunRow | undefined> {
    return trx('runs').where({ id, org_id: orgId }).forUpdate().first(RUN_COLUMNS);
  }

  async update(trx: RunsTx, id: string, change: RunChange): Promise<RunRow> {
    const set: Record<string, unknown> = { updated_at: trx.fn.now() };
    for (const [column, value] of Object.entries(change)) {
      if (value !== undefined) set[column] = value === 'now' ? trx.fn.now() : value;
    }
    const [row] = await trx('runs').where({ id }).update(set).returning(RUN_COLUMNS);
    return row as RunRow;
  }

  /**
   * Cancels every active run below `id` (its child runs, theirs, …, through finished ones too), locking
   * them first, in one statement; answers each as it is now, with the status it had.
   */
  async cancelDescendants(trx: RunsTx, id: string, by: string | null): Promise<CancelledDescendant[]> {
    const columns = RUN_COLUMNS.map((c) => `r.${c}`).join(', ');
    const result = await trx.raw<{ rows: CancelledDescendant[] }>(
      `WITH RECURSIVE tree AS (
         SELECT id FROM runs WHERE parent_run_id = ?
         UNION SELECT c.id FROM runs c JOIN tree ON c.parent_run_id = tree.id),
       active AS (SELECT id, status FROM runs WHERE id IN (SELECT id FROM tree) AND status IN ('queued', 'running', 'paused', 'awaiting_approval') FOR UPDATE)
       UPDATE runs r SET status = 'cancelled', cancelled_at = now(), cancelled_by = ?, finished_at = now(), paused_at = NULL,
         updated_by = ?, updated_at = now()
       FROM active WHERE r.id = active.id
       RETURNING ${columns}, r.parent_run_id, active.status AS previous_status`,
      [id, by, by],
    );
    return result.rows;
  }

  /** The pending approvals of cancelled runs are cancelled with them (nothing is left to approve). */
  async cancelPendingApprovals(trx: RunsTx, runIds: readonly string[]): Promise<void> {
    await trx('approvals')
      .whereIn('run_id', runIds)
      .where('status', 'pending')
      .update({ status: 'cancelled', resolved_at: trx.fn.now(), updated_at: trx.fn.now() });
  }

  /** Marks the run deleted; `updated_at` moves with it, as it always has for a run. */
  async softDelete(trx: RunsTx, id: string, by: string | null): Promise<RunRow> {
    const [row] = await RUNS.markDeleted(trx, [id], by, { updated_at: trx.fn.now() });
    return row!;
  }

  async restore(trx: RunsTx, id: string, by: string | null): Promise<RunRow> {
    const [row] = await RUNS.restore(trx, [id], by);
    return row!;
  }

  async purge(trx: RunsTx, id: string): Promise<void> {
    await RUNS.purge(trx, [id]);
  }

  /** What the organization's live runs hold: their flows (newest name of each), statuses and trigger sources. */
  async filterOptions(orgId: string): Promise<FilterOptions> {
    const live = () => RUNS.live(this.knex).where('org_id', orgId);
    const [flows, statuses, sources] = await Promise.all([
      live()
        .whereNotNull('flow_id')
        .distinctOn('flow_id')
        .select('flow_id', 'flow_name')
        .orderBy([{ column: 'flow_id' }, { column: 'created_at', order: 'desc' }]),
      live().distinct('status').orderBy('status'),
      live().distinct('trigger_source').orderBy('trigger_source'),
    ]);
    return {
      flows: (flows as { flow_id: string; flow_name: string }[])
        .map((f) => ({ id: f.flow_id, name: f.flow_name }))
        .sort((a, b) => a.name.localeCompare(b.name)),
      statuses: (statuses as { status: RunStatus }[]).map((s) => s.status),
      trigger_sources: (sources as { trigger_source: TriggerSource }[]).map((s) => s.trigger_source),
    };
  }
}
