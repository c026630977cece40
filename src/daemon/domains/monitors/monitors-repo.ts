import type { Knex } from 'knex';
import type { HeldFacts } from '../run-callbacks/fence.js';
import { MONITOR_COLUMNS, type MonitorRow, type SampleRow } from './monitor-view.js';

/** The run as the monitor callbacks fence it, with what a monitor copies from it. */
export type MonitorRunFacts = HeldFacts & { readonly org_id: string; readonly monitor_seq: string | number };

export type NewMonitor = Pick<MonitorRow, 'run_id' | 'org_id' | 'monitor_key' | 'name' | 'step_id' | 'kind' | 'target' | 'unit'>;

export interface MonitorChanges {
  readonly name?: string | undefined;
  readonly target?: string | null | undefined;
  readonly unit?: string | null | undefined;
  readonly summary?: Record<string, unknown> | undefined;
  readonly status?: 'closed' | undefined;
}

/** A sample window: after a seq, within `[from, to)`. */
export interface SampleWindow {
  readonly after: number;
  readonly from?: string | undefined;
  readonly to?: string | undefined;
  readonly limit: number;
}

/** The `monitors` table, and the reads of samples a monitor's own pages make. */
export class MonitorsRepo {
  constructor(private readonly knex: Knex) {}

  transaction<T>(work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    return this.knex.transaction(work);
  }

  /** The run, locked for the rest of the transaction (soft-deleted ones included: only finished runs are). */
  lockRun(trx: Knex.Transaction, runId: string): Promise<MonitorRunFacts | undefined> {
    return trx('runs')
      .where({ id: runId })
      .forUpdate()
      .first('status', 'worker_id', 'attempt', 'lease_expires_at', 'org_id', 'monitor_seq');
  }

  /** Creates the monitor; the caller holds the run's lock and has found no monitor of that key. */
  async insert(trx: Knex.Transaction, row: NewMonitor): Promise<MonitorRow> {
    const [created] = (await trx('monitors').insert(row).returning(MONITOR_COLUMNS)) as MonitorRow[];
    return created!;
  }

  /** How many monitors the run has opened, open or closed. */
  async countOfRun(trx: Knex.Transaction, runId: string): Promise<number> {
    const [row] = (await trx('monitors').where({ run_id: runId }).count({ n: '*' })) as { n: string | number }[];
    return Number(row!.n);
  }

  byKey(trx: Knex.Transaction, runId: string, key: string): Promise<MonitorRow | undefined> {
    return trx('monitors').where({ run_id: runId, monitor_key: key }).first(MONITOR_COLUMNS);
  }

  get(id: string, trx: Knex | Knex.Transaction = this.knex): Promise<MonitorRow | undefined> {
    return trx('monitors').where({ id }).first(MONITOR_COLUMNS);
  }

  /** The monitors, locked, in id order (the order every writer locks them in). */
  lockMany(trx: Knex.Transaction, ids: readonly string[]): Promise<MonitorRow[]> {
    return trx('monitors').whereIn('id', ids).orderBy('id').forUpdate().select(MONITOR_COLUMNS);
  }

  /** The run each monitor belongs to (unlocked: it never changes). */
  runsOf(ids: readonly string[]): Promise<{ id: string; run_id: string }[]> {
    return this.knex('monitors').whereIn('id', ids).select('id', 'run_id');
  }

  async update(trx: Knex.Transaction, id: string, changes: MonitorChanges): Promise<MonitorRow> {
    const { summary, status, ...names } = changes;
    const [row] = (await trx('monitors')
      .where({ id })
      .update({
        ...names,
        ...(summary !== undefined ? { summary: JSON.stringify(summary) } : {}),
        ...(status === 'closed' ? { status, closed_at: trx.fn.now() } : {}),
        updated_at: trx.fn.now(),
      })
      .returning(MONITOR_COLUMNS)) as MonitorRow[];
    return row!;
  }

  /** Closes the run's open monitors; answers their ids. */
  async closeOpen(trx: Knex.Transaction, runId: string): Promise<string[]> {
    const rows = (await trx('monitors')
      .where({ run_id: runId, status: 'open' })
      .update({ status: 'closed', closed_at: trx.fn.now(), updated_at: trx.fn.now() })
      .returning('id')) as { id: string }[];
    return rows.map((row) => row.id).sort();
  }

  /** Whether the live run is the organization's. */
  async runInOrg(orgId: string, runId: string): Promise<boolean> {
    return (await this.knex('runs').where({ id: runId, org_id: orgId }).whereNull('deleted_at').first('id')) !== undefined;
  }

  /** The run's monitors, oldest first. */
  listOfRun(runId: string): Promise<MonitorRow[]> {
    return this.knex('monitors')
      .where({ run_id: runId })
      .orderBy([{ column: 'created_at' }, { column: 'id' }])
      .select(MONITOR_COLUMNS);
  }

  ofRun(runId: string, id: string): Promise<MonitorRow | undefined> {
    return this.knex('monitors').where({ run_id: runId, id }).first(MONITOR_COLUMNS);
  }

  /** Samples of the window by seq, at most `limit + 1` (the extra one says another page follows). */
  samples(monitorId: string, window: SampleWindow): Promise<SampleRow[]> {
    const query = this.knex('monitor_samples').where({ monitor_id: monitorId }).andWhere('seq', '>', window.after);
    if (window.from !== undefined) query.andWhere('ts', '>=', window.from);
    if (window.to !== undefined) query.andWhere('ts', '<', window.to);
    return query
      .orderBy('seq')
      .limit(window.limit + 1)
      .select('seq', 'ts', 'value', 'status', 'data');
  }
}
