import type { Knex } from 'knex';
import type { RunStatus } from '../runs/run-view.js';
import type { HeldFacts } from './fence.js';
import { INTERNAL_RUN_COLUMNS, type InternalRunRow } from './internal-run-view.js';

export type CallbacksTx = Knex.Transaction;

/** What the worker's PATCH writes when it ends the run. */
export interface RunEnd {
  readonly status: Extract<RunStatus, 'succeeded' | 'failed'>;
  readonly outputs?: Record<string, unknown> | undefined;
  readonly error?: Record<string, unknown> | undefined;
}

/** The runs table as the worker's callbacks read and change it (soft-deleted runs included: only finished runs are deleted). */
export class RunCallbacksRepo {
  constructor(private readonly knex: Knex) {}

  transaction<T>(work: (trx: CallbacksTx) => Promise<T>): Promise<T> {
    return this.knex.transaction(work);
  }

  get(id: string): Promise<InternalRunRow | undefined> {
    return this.knex('runs').where({ id }).first(INTERNAL_RUN_COLUMNS);
  }

  /** The run, locked for the rest of the transaction. */
  lock(trx: CallbacksTx, id: string): Promise<InternalRunRow | undefined> {
    return trx('runs').where({ id }).forUpdate().first(INTERNAL_RUN_COLUMNS);
  }

  /** Who holds a run, read without a lock (the internal cancel asks it of the parent; locking it could deadlock with a cancel coming down). */
  holding(trx: CallbacksTx, id: string): Promise<HeldFacts | undefined> {
    return trx('runs').where({ id }).first('status', 'worker_id', 'attempt', 'lease_expires_at');
  }

  /** The worker ends the run: its status, outputs and error, `finished_at`, and the lease cleared. */
  async finish(trx: CallbacksTx, id: string, end: RunEnd): Promise<InternalRunRow> {
    const [row] = await trx('runs')
      .where({ id })
      .update({
        status: end.status,
        finished_at: trx.fn.now(),
        updated_at: trx.fn.now(),
        lease_expires_at: null,
        paused_at: null,
        ...(end.outputs !== undefined ? { outputs_json: JSON.stringify(end.outputs) } : {}),
        error_json: end.error !== undefined ? JSON.stringify(end.error) : null,
      })
      .returning(INTERNAL_RUN_COLUMNS);
    return row as InternalRunRow;
  }

  async setRunVars(trx: CallbacksTx, id: string, vars: Record<string, unknown>): Promise<Record<string, unknown>> {
    const [row] = await trx('runs')
      .where({ id })
      .update({ run_vars_json: JSON.stringify(vars), updated_at: trx.fn.now() })
      .returning('run_vars_json');
    return (row as { run_vars_json: Record<string, unknown> }).run_vars_json;
  }

  /** Sets the shared worker unless one is set already; answers the one that holds. */
  async assignSharedWorker(trx: CallbacksTx, id: string, workerId: string): Promise<string> {
    const [row] = await trx('runs')
      .where({ id })
      .update({ shared_worker_id: trx.raw('coalesce(shared_worker_id, ?)', [workerId]) })
      .returning('shared_worker_id');
    return (row as { shared_worker_id: string }).shared_worker_id;
  }
}
