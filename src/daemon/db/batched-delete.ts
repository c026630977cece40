import type { Knex } from 'knex';

/** A condition on one table's rows, as SQL with its bindings (`expires_at < ?`, `[now]`). */
export interface RowCondition {
  readonly sql: string;
  readonly bindings: readonly Knex.Value[];
}

/**
 * Deletes the rows of `table` matching `where`, at most `batch` per statement, each statement its own
 * short transaction, until a statement deletes fewer: a backlog (retention switched on over years of
 * rows) is worked off without one long transaction holding locks. Answers how many rows went. `table` is
 * the caller's constant, never input.
 */
export async function deleteInBatches(knex: Knex, table: string, where: RowCondition, batch: number): Promise<number> {
  let total = 0;
  for (;;) {
    const result = await knex.raw<{ rows: { deleted: number }[] }>(
      `WITH gone AS (
         DELETE FROM ${table} WHERE ctid = ANY(ARRAY(SELECT ctid FROM ${table} WHERE ${where.sql} LIMIT ?)) RETURNING 1
       ) SELECT count(*)::integer AS deleted FROM gone`,
      [...where.bindings, batch],
    );
    const deleted = result.rows[0]?.deleted ?? 0;
    total += deleted;
    if (deleted < batch) return total;
  }
}
