import type { Knex } from 'knex';

/** The pool or the caller's transaction: writes take the transaction so the audit entry commits with them. */
export type Db = Knex | Knex.Transaction;

/**
 * One table's plain writes, answering the row written with the table's columns. A change stamps
 * `updated_at` here, so no repository forgets it; who made it (`updated_by`) is the caller's to set.
 * Soft-deletable tables get these through `SoftDeleteTable`; a table whose rows are deleted for good
 * (registry credentials) uses this one alone, so it offers no soft delete it cannot do.
 */
export class Table<Row> {
  constructor(
    readonly table: string,
    protected readonly columns: readonly string[],
  ) {}

  async insert(db: Db, row: Record<string, unknown>): Promise<Row> {
    const [inserted]: unknown[] = await db(this.table).insert(row).returning(this.columns);
    return inserted as Row;
  }

  async update(db: Db, id: string, change: Record<string, unknown>): Promise<Row> {
    const [updated]: unknown[] = await db(this.table)
      .where({ id })
      .update({ ...change, updated_at: db.fn.now() })
      .returning(this.columns);
    return updated as Row;
  }
}
