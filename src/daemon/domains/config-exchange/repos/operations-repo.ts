import type { Knex } from 'knex';
import { TransactionalRepo } from '../../../db/transactional-repo.js';

export interface OperationRow {
  readonly correlation_id: string;
  readonly mode: 'export' | 'plan' | 'apply';
  readonly status: 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';
  readonly org_id: string | null;
  readonly org_slug: string | null;
  readonly families_json: string[] | null;
  readonly prune: boolean;
  readonly plan_id: string | null;
  readonly bundle: string | null;
  readonly progress_json: { phase: string; done: number; total: number };
  readonly result_json: unknown;
  readonly error_json: Record<string, unknown> | null;
  readonly cancel_requested: boolean;
  readonly requested_by_sub: string | null;
  readonly requested_by_username: string | null;
  readonly client_ip: string | null;
  readonly user_agent: string | null;
  readonly created_at: Date;
  readonly started_at: Date | null;
  readonly finished_at: Date | null;
}

const TABLE = 'config_exchange_operations';
const FINISHED = ['succeeded', 'failed', 'cancelled'];

/** `config_exchange_operations`: the queue of export, plan and apply operations and their outcomes. */
export class OperationsRepo extends TransactionalRepo {
  async insert(trx: Knex.Transaction, row: Record<string, unknown>): Promise<OperationRow> {
    const [inserted] = await trx(TABLE).insert(row).returning('*');
    return inserted as OperationRow;
  }

  async find(id: string): Promise<OperationRow | undefined> {
    return this.knex(TABLE).where({ correlation_id: id }).first();
  }

  /**
   * Takes the oldest queued operation, or a running one whose claimant's lease ran out (its instance
   * died): one statement, `SKIP LOCKED`, so instances claiming at once take different rows.
   */
  async claim(instance: string, leaseSeconds: number): Promise<OperationRow | undefined> {
    const { rows } = (await this.knex.raw(
      `UPDATE ${TABLE} SET status = 'running', claimed_by = ?, started_at = coalesce(started_at, now()),
         lease_expires_at = now() + make_interval(secs => ?), updated_at = now(),
         progress_json = '{"phase":"started","done":0,"total":0}'
       WHERE correlation_id = (
         SELECT correlation_id FROM ${TABLE}
         WHERE status = 'queued' OR (status = 'running' AND lease_expires_at < now())
         ORDER BY created_at, correlation_id LIMIT 1 FOR UPDATE SKIP LOCKED)
       RETURNING *`,
      [instance, leaseSeconds],
    )) as { rows: OperationRow[] };
    return rows[0];
  }

  async progress(id: string, progress: { phase: string; done: number; total: number }): Promise<void> {
    await this.knex(TABLE)
      .where({ correlation_id: id, status: 'running' })
      .update({ progress_json: progress, updated_at: this.knex.fn.now() });
  }

  /** Records how a running operation ended; `db` is the apply's transaction when the result commits with its changes. */
  async finish(
    id: string,
    outcome: { status: 'succeeded' | 'failed' | 'cancelled'; result?: unknown; error?: Record<string, unknown> },
    db: Knex = this.knex,
  ): Promise<boolean> {
    const done = { phase: outcome.status, done: 1, total: 1 };
    const updated = await db(TABLE)
      .where({ correlation_id: id, status: 'running' })
      .update({
        status: outcome.status,
        result_json: outcome.result === undefined ? null : JSON.stringify(outcome.result),
        error_json: outcome.error === undefined ? null : JSON.stringify(outcome.error),
        progress_json: done,
        finished_at: db.fn.now(),
        updated_at: db.fn.now(),
        lease_expires_at: null,
      });
    return updated > 0;
  }

  async cancelRequested(id: string, db: Knex = this.knex): Promise<boolean> {
    const row = await db(TABLE).where({ correlation_id: id }).first('cancel_requested');
    return (row as { cancel_requested: boolean } | undefined)?.cancel_requested ?? false;
  }

  /**
   * Cancels a queued operation at once, asks a running one to stop (it stops before its apply commits);
   * answers the row as it is now and whether this call changed it, or undefined when there is none.
   */
  async cancel(trx: Knex.Transaction, id: string): Promise<{ row: OperationRow; changed: boolean } | undefined> {
    const row = (await trx(TABLE).where({ correlation_id: id }).forUpdate().first()) as OperationRow | undefined;
    if (!row || FINISHED.includes(row.status)) return row && { row, changed: false };
    const change =
      row.status === 'queued'
        ? {
            status: 'cancelled',
            cancel_requested: true,
            finished_at: trx.fn.now(),
            progress_json: { phase: 'cancelled', done: 0, total: 0 },
          }
        : { cancel_requested: true };
    const [updated] = await trx(TABLE)
      .where({ correlation_id: id })
      .update({ ...change, updated_at: trx.fn.now() })
      .returning('*');
    return { row: updated as OperationRow, changed: true };
  }
}
