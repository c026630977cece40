import type { Knex } from 'knex';
import type { SyncCounts } from '../../../shared/api/inventory-providers.js';

export interface SyncCursor {
  /** `sites`, `devices`, `objects:<type>` or `stale`. */
  readonly phase: string;
  /** The next page of the phase (null: its first). */
  readonly page: string | null;
  /** The newest `last_updated` seen so far in the pass (ISO 8601). */
  readonly newest?: string | null;
}

export interface SyncError {
  readonly code: string;
  readonly message: string;
  readonly phase: string | null;
  readonly page: string | null;
}

export interface SyncRunRow {
  readonly id: string;
  readonly provider_row_id: string;
  readonly org_id: string;
  readonly mode: 'full' | 'incremental';
  readonly status: 'running' | 'succeeded' | 'failed';
  readonly resumed_from: string | null;
  readonly pass_started_at: Date;
  readonly started_at: Date;
  readonly heartbeat_at: Date;
  readonly finished_at: Date | null;
  readonly cursor_json: SyncCursor | null;
  readonly counts_json: Partial<SyncCounts>;
  readonly error_json: SyncError | null;
  readonly triggered_by: string | null;
}

const COLUMNS = [
  'id',
  'provider_row_id',
  'org_id',
  'mode',
  'status',
  'resumed_from',
  'pass_started_at',
  'started_at',
  'heartbeat_at',
  'finished_at',
  'cursor_json',
  'counts_json',
  'error_json',
  'triggered_by',
] as const;

/** `inventory_sync_runs`: the history, and the one running sync per provider. */
export class SyncRunsRepo {
  constructor(private readonly knex: Knex) {}

  /**
   * Opens a running sync, or answers undefined when one is running already: the unique index on running
   * rows decides, so two daemons racing get one each way. Its own statement, committed at once.
   */
  async open(
    row: Omit<SyncRunRow, 'id' | 'status' | 'started_at' | 'heartbeat_at' | 'finished_at' | 'error_json' | 'counts_json'>,
  ): Promise<SyncRunRow | undefined> {
    const inserted = await this.knex('inventory_sync_runs')
      .insert({ ...row, status: 'running', cursor_json: row.cursor_json === null ? null : JSON.stringify(row.cursor_json) })
      .onConflict(this.knex.raw(`(provider_row_id) WHERE status = 'running'`))
      .ignore()
      .returning(COLUMNS);
    return inserted[0] as SyncRunRow | undefined;
  }

  async running(providerRowId: string): Promise<SyncRunRow | undefined> {
    return this.knex('inventory_sync_runs').where({ provider_row_id: providerRowId, status: 'running' }).first(COLUMNS);
  }

  /** Fails a running sync whose heartbeat is older than `before` (its daemon died): the provider is free again. */
  async abandon(id: string, before: Date): Promise<boolean> {
    const changed = await this.knex('inventory_sync_runs')
      .where({ id, status: 'running' })
      .where('heartbeat_at', '<', before)
      .update({
        status: 'failed',
        finished_at: this.knex.fn.now(),
        error_json: JSON.stringify({
          code: 'abandoned',
          message: 'the instance running the sync stopped answering',
          phase: null,
          page: null,
        }),
      });
    return changed > 0;
  }

  /** Where the sync stands, in the page's transaction (the page and its progress commit together). */
  async progress(trx: Knex.Transaction, id: string, cursor: SyncCursor, counts: SyncCounts): Promise<void> {
    await trx('inventory_sync_runs')
      .where({ id })
      .update({ cursor_json: JSON.stringify(cursor), counts_json: JSON.stringify(counts), heartbeat_at: trx.fn.now() });
  }

  async finish(
    trx: Knex | Knex.Transaction,
    id: string,
    status: 'succeeded' | 'failed',
    counts: SyncCounts,
    error: SyncError | null,
  ): Promise<SyncRunRow> {
    const [row] = await trx('inventory_sync_runs')
      .where({ id })
      .update({
        status,
        finished_at: trx.fn.now(),
        counts_json: JSON.stringify(counts),
        error_json: error === null ? null : JSON.stringify(error),
        ...(status === 'succeeded' ? { cursor_json: null } : {}),
      })
      .returning(COLUMNS);
    return row as SyncRunRow;
  }

  /** The newest finished sync of the provider (a failed one is where the next resumes). */
  async latestFinished(providerRowId: string): Promise<SyncRunRow | undefined> {
    return this.knex('inventory_sync_runs')
      .where({ provider_row_id: providerRowId })
      .whereNot({ status: 'running' })
      .orderBy([
        { column: 'started_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .first(COLUMNS);
  }

  async history(
    providerRowId: string,
    filter: { status?: string | undefined; limit: number; offset: number },
  ): Promise<{ rows: SyncRunRow[]; total: number }> {
    const query = this.knex('inventory_sync_runs').where({ provider_row_id: providerRowId });
    if (filter.status) query.where({ status: filter.status });
    const [rows, count] = await Promise.all([
      query
        .clone()
        .orderBy([
          { column: 'started_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ])
        .limit(filter.limit)
        .offset(filter.offset)
        .select(COLUMNS),
      query.clone().count<{ n: string | number }[]>({ n: '*' }),
    ]);
    return { rows: rows as SyncRunRow[], total: Number(count[0]?.n ?? 0) };
  }
}
